import { describe, expect, it } from "vitest";
import { createGenerationReport, httpContext, readGenerationRequest } from "./handle-generation";
import type { RequestEndEvent } from "./handler-options";
import { resolveHandlerSettings } from "./handler-options";
import { PROTOCOL_ADAPTERS } from "./protocol-adapters";

const post = (body: unknown, headers: Record<string, string> = { authorization: "Bearer s-1" }) =>
  new Request("http://relax.test/v1/chat/completions?x=1", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("httpContext", () => {
  it("should keep the path and the headers but never the credential", () => {
    const context = httpContext(
      post({}, { authorization: "Bearer s-1", "x-api-key": "s-1", "user-agent": "ua" }),
    );
    expect(context.path).toBe("/v1/chat/completions");
    expect(context.headers).toEqual({ "content-type": "application/json", "user-agent": "ua" });
  });
});

describe("createGenerationReport", () => {
  it("should report the session and stream known when the request ended", async () => {
    const events: RequestEndEvent[] = [];
    const report = createGenerationReport(post({}), "chat-completions", (event) => events.push(event));
    report.sessionId = "s-1";
    const response = report.fail(new Error("boom"));
    expect(response.status).toBe(500);
    expect(events).toEqual([
      expect.objectContaining({ sessionId: "s-1", stream: false, status: 500, path: "/v1/chat/completions" }),
    ]);
    report.stream = true;
    report.end(undefined);
    expect(events[1]).toEqual({
      protocol: "chat-completions",
      sessionId: "s-1",
      stream: true,
      status: 200,
      path: "/v1/chat/completions",
    });
  });
});

describe("readGenerationRequest", () => {
  it("should authenticate, project the body and fill in the report", async () => {
    const report = { sessionId: undefined as string | undefined, stream: false };
    const settings = resolveHandlerSettings({ generate: async () => Promise.reject(new Error("unused")) });
    const read = await readGenerationRequest(
      post({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }),
      PROTOCOL_ADAPTERS["chat-completions"],
      settings,
      report,
    );
    expect(report).toEqual({ sessionId: "s-1", stream: true });
    expect(read.sessionId).toBe("s-1");
    expect(read.converted.request.messages).toEqual([{ role: "user", content: "hi" }]);
  });

  it("should fill in the session before a body error is thrown", async () => {
    const report = { sessionId: undefined as string | undefined, stream: false };
    const settings = resolveHandlerSettings({ generate: async () => Promise.reject(new Error("unused")) });
    await expect(
      readGenerationRequest(
        post({ messages: "nope" }),
        PROTOCOL_ADAPTERS["chat-completions"],
        settings,
        report,
      ),
    ).rejects.toThrow(/messages/);
    expect(report.sessionId).toBe("s-1");
  });
});
