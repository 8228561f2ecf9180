import { CanonicalizationError } from "@relax/chat";
import { describe, expect, it } from "vitest";
import { StandInContextLengthError } from "../../test/support/sse-fixture-cases";
import { describeError } from "./describe-error";
import { ProtocolError } from "./protocol-error";
import { toErrorResponse } from "./to-error-response";

const sessionNotFoundMarker: unique symbol = Symbol.for("relax.error.SessionNotFoundError") as never;

/** Stands in for a session-registry error: only the global marker matters. */
class SessionNotFoundError extends Error {
  readonly [sessionNotFoundMarker] = true;
  override readonly name = "SessionNotFoundError";
}

describe("describeError", () => {
  it("should read a ProtocolError's own status, type, code and param", () => {
    const error = new ProtocolError({
      status: 503,
      code: "engine_unavailable",
      message: "engine down",
      retryable: true,
    });
    expect(describeError(error)).toEqual({
      status: 503,
      type: "server_error",
      code: "engine_unavailable",
      param: null,
      message: "engine down",
      retryable: true,
    });
  });

  it("should reject a ProtocolError status outside 400..599", () => {
    expect(() => new ProtocolError({ status: 200, message: "ok" })).toThrow(
      "ProtocolError status must be an integer in 400..599, got 200",
    );
  });

  it("should map a CanonicalizationError to 400 with its path and param", () => {
    const error = new CanonicalizationError({
      path: "messages[3].tool_calls[0].id",
      reason: "must be a non-empty string",
    });
    expect(describeError(error)).toEqual({
      status: 400,
      type: "invalid_request_error",
      code: "invalid_request_error",
      param: "messages",
      message: "messages[3].tool_calls[0].id: must be a non-empty string",
      retryable: false,
    });
  });

  it("should map a ContextLengthError to 400 context_length_exceeded in OpenAI's wording", () => {
    expect(describeError(new StandInContextLengthError())).toMatchObject({
      status: 400,
      code: "context_length_exceeded",
      param: "messages",
      message:
        "This model's maximum context length is 32768 tokens. However, your messages resulted in 40000 tokens. Please reduce the length of the messages.",
    });
    const withCompletion = Object.assign(new StandInContextLengthError(), { requestedTokens: 512 });
    expect(describeError(withCompletion).message).toBe(
      "This model's maximum context length is 32768 tokens. However, you requested 40512 tokens (40000 in the messages, 512 in the completion). Please reduce the length of the messages or completion.",
    );
    const bare = { [Symbol.for("relax.error.ContextLengthError")]: true, message: "too long" };
    expect(describeError(bare)).toMatchObject({
      status: 400,
      code: "context_length_exceeded",
      message: "too long",
    });
  });

  it("should map a SessionNotFoundError (by marker, from any package copy) to 404 session_discarded", () => {
    expect(describeError(new SessionNotFoundError("session s-1 was closed"))).toEqual({
      status: 404,
      type: "not_found_error",
      code: "session_discarded",
      param: null,
      message: "session s-1 was closed",
      retryable: false,
    });
  });

  it("should map an AbortError to 499 and anything else to 500", () => {
    expect(describeError(new DOMException("aborted", "AbortError"))).toMatchObject({
      status: 499,
      code: "client_disconnect",
    });
    expect(describeError(new TypeError("x is undefined"))).toEqual({
      status: 500,
      type: "server_error",
      code: "internal_error",
      param: null,
      message: "internal error: x is undefined",
      retryable: false,
    });
    expect(describeError("a string")).toMatchObject({ status: 500, message: "internal error: a string" });
  });
});

describe("toErrorResponse", () => {
  it("should write an OpenAI body for Chat Completions and Responses", async () => {
    for (const protocol of ["chat-completions", "responses"] as const) {
      const response = toErrorResponse(new SessionNotFoundError("gone"), protocol);
      expect(response.status).toBe(404);
      expect(response.headers.get("x-should-retry")).toBe("false");
      expect(await response.json()).toEqual({
        error: { message: "gone", type: "not_found_error", param: null, code: "session_discarded" },
      });
    }
  });

  it("should write an Anthropic body with the type for the status", async () => {
    const cases = [
      [
        new CanonicalizationError({ path: "max_tokens", reason: "is required" }),
        400,
        "invalid_request_error",
      ],
      [new ProtocolError({ status: 401, message: "no key" }), 401, "authentication_error"],
      [new SessionNotFoundError("gone"), 404, "not_found_error"],
      [new ProtocolError({ status: 529, message: "busy", retryable: true }), 529, "overloaded_error"],
      [new Error("boom"), 500, "api_error"],
    ] as const;
    for (const [error, status, type] of cases) {
      const response = toErrorResponse(error, "anthropic-messages");
      expect(response.status).toBe(status);
      const body = (await response.json()) as { type: string; error: { type: string } };
      expect(body.type).toBe("error");
      expect(body.error.type).toBe(type);
    }
    expect(
      toErrorResponse(
        new ProtocolError({ status: 529, message: "busy", retryable: true }),
        "anthropic-messages",
      ).headers.get("x-should-retry"),
    ).toBe("true");
  });
});
