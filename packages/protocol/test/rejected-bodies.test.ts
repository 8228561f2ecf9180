import { describe, expect, it } from "vitest";
import { REJECTED_CASES } from "./rejected-cases";
import { callHandler } from "./support/call-handler";
import { TEXT_TURN } from "./support/scripted-generate";

describe("rejected request bodies", () => {
  it("should cover at least 25 bodies across the three protocols", () => {
    expect(REJECTED_CASES.length).toBeGreaterThanOrEqual(25);
    for (const path of ["/v1/chat/completions", "/v1/responses", "/v1/messages"]) {
      expect(REJECTED_CASES.filter((c) => c.path === path).length).toBeGreaterThanOrEqual(8);
    }
  });

  it.each(REJECTED_CASES)("should answer $status for $name", async (c) => {
    let generated = false;
    const { status, headers, text } = await callHandler({
      path: c.path,
      body: c.body,
      headers: c.headers ?? { authorization: "Bearer session-1" },
      options: {
        generate: async () => {
          generated = true;
          return TEXT_TURN;
        },
      },
    });
    expect(generated).toBe(false);
    expect(status).toBe(c.status);
    expect(headers.get("content-type")).toBe("application/json");
    expect(headers.get("x-should-retry")).toBe("false");
    const body = JSON.parse(text);
    if (c.anthropicType !== undefined) {
      expect(body).toEqual({ type: "error", error: { type: c.anthropicType, message: c.message } });
    } else {
      expect(body.error.message).toBe(c.message);
      expect(body.error.param).toBe(c.param);
      expect(body.error.type).toBe(
        c.status === 401
          ? "authentication_error"
          : c.status === 404
            ? "not_found_error"
            : "invalid_request_error",
      );
    }
  });
});
