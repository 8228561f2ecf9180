import { describe, expect, it } from "vitest";
import { mapAnthropicErrorType } from "../anthropic-messages/anthropic-messages-error";
import { toErrorResponse } from "../handler/to-error-response";
import { describeCode } from "./describe-error";
import { defaultErrorType, ProtocolError } from "./protocol-error";
import {
  type AgentStatusCode,
  agentStatusRow,
  isStatusCode,
  STATUS_TABLE,
  type StatusRow,
  statusOf,
} from "./status-table";

const rows = Object.entries(STATUS_TABLE) as Array<[string, StatusRow]>;

describe("STATUS_TABLE", () => {
  it("should give every row a 4xx/5xx status and at least one API", () => {
    for (const [code, row] of rows) {
      expect(row.status, code).toBeGreaterThanOrEqual(400);
      expect(row.status, code).toBeLessThanOrEqual(599);
      expect(row.agent !== undefined || row.control !== undefined, code).toBe(true);
    }
  });

  // The wire stays as released: the per-code types equal what the status alone used to give.
  it("should give the OpenAI type of the status, except the 501 (invalid_request_error)", () => {
    for (const [code, row] of rows) {
      if (row.agent === undefined) continue;
      const expected =
        code === "unsupported_endpoint" ? "invalid_request_error" : defaultErrorType(row.status);
      expect(row.agent.type, code).toBe(expected);
    }
  });

  it("should give the Anthropic type of the status", () => {
    for (const [code, row] of rows) {
      if (row.agent !== undefined)
        expect(row.agent.anthropicType, code).toBe(mapAnthropicErrorType(row.status));
    }
  });

  it("should mark retryable exactly the engine's temporary failures", () => {
    expect(
      rows
        .filter(([, row]) => row.retryable)
        .map(([code]) => code)
        .sort(),
    ).toEqual(["backend_overloaded", "backend_unavailable", "generation_aborted"]);
  });

  it("should answer statusOf, isStatusCode and agentStatusRow by the table", () => {
    expect(statusOf("state_conflict")).toBe(409);
    expect(statusOf("method_not_allowed")).toBe(405);
    expect(() => statusOf("teapot" as AgentStatusCode)).toThrow(RangeError);
    expect(isStatusCode("pause_timeout")).toBe(true);
    expect(isStatusCode("toString")).toBe(false);
    expect(agentStatusRow("pause_timeout")).toBeUndefined();
    expect(agentStatusRow("not_found")?.status).toBe(404);
    expect(agentStatusRow(null)).toBeUndefined();
  });
});

describe("describeCode", () => {
  it("should take status, type and retryability from the code's row", () => {
    expect(describeCode("backend_overloaded", "busy")).toEqual({
      status: 429,
      type: "rate_limit_error",
      code: "backend_overloaded",
      param: null,
      message: "busy",
      retryable: true,
    });
    expect(describeCode("invalid_request_error", "x: bad", "x").param).toBe("x");
  });
});

describe("ProtocolError from a code", () => {
  it("should take the status, type and retryability of a table code when no status is given", () => {
    const error = new ProtocolError({ code: "request_too_large", message: "too big" });
    expect([error.status, error.type, error.retryable]).toEqual([413, "invalid_request_error", false]);
    const retry = new ProtocolError({ code: "backend_unavailable", message: "down" });
    expect([retry.status, retry.type, retry.retryable]).toEqual([503, "server_error", true]);
  });

  it("should keep a status of the thrower's choice (not retryable unless said)", () => {
    const error = new ProtocolError({ status: 503, code: "engine_unavailable", message: "x" });
    expect([error.status, error.type, error.code, error.retryable]).toEqual([
      503,
      "server_error",
      "engine_unavailable",
      false,
    ]);
    expect(() => new ProtocolError({ code: "pause_timeout" as AgentStatusCode, message: "x" })).toThrow(
      RangeError,
    );
  });

  it("should render the Anthropic type of the code's row, and of the status for a code outside the table", async () => {
    const tooLarge = toErrorResponse(
      new ProtocolError({ code: "request_too_large", message: "m" }),
      "anthropic-messages",
    );
    expect(await tooLarge.json()).toEqual({
      type: "error",
      error: { type: "request_too_large", message: "m" },
    });
    const custom = toErrorResponse(
      new ProtocolError({ status: 529, code: "busy", message: "m" }),
      "anthropic-messages",
    );
    expect(await custom.json()).toEqual({ type: "error", error: { type: "overloaded_error", message: "m" } });
  });
});
