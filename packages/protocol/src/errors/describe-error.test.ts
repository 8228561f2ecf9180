import { CanonicalizationError } from "@relax/chat";
import { describe, expect, it } from "vitest";
import { StandInContextLengthError } from "../../test/support/sse-fixture-cases";
import { toErrorResponse } from "../handler/to-error-response";
import { describeError } from "./describe-error";
import { ProtocolError } from "./protocol-error";

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

/** An engine error as `@relax/sglang` builds it (this package does not import it): markers and fields. */
function engineError(status: number, retryAfterSeconds?: number): Error {
  const names = ["SglangError", "SglangApiError", ...(status >= 500 ? ["SglangServerError"] : [])];
  const error = Object.assign(new Error(`${status} busy at http://10.0.0.7:30000/generate`), {
    status,
    url: "http://10.0.0.7:30000/generate",
    retryAfterSeconds,
  });
  for (const name of names) Object.defineProperty(error, Symbol.for(`relax.error.${name}`), { value: true });
  return error;
}

describe("engine 503 / 429 reach agents as retryable", () => {
  it("should answer an engine 503 with 503, x-should-retry: true and retry-after, in each protocol's format", async () => {
    const bodies = {
      "chat-completions": {
        error: {
          message: "the inference backend is unavailable: 503 busy at <engine>",
          type: "server_error",
          param: null,
          code: "backend_unavailable",
        },
      },
      responses: {
        error: {
          message: "the inference backend is unavailable: 503 busy at <engine>",
          type: "server_error",
          param: null,
          code: "backend_unavailable",
        },
      },
      "anthropic-messages": {
        type: "error",
        error: { type: "api_error", message: "the inference backend is unavailable: 503 busy at <engine>" },
      },
    } as const;
    for (const [protocol, body] of Object.entries(bodies) as Array<[keyof typeof bodies, unknown]>) {
      const response = toErrorResponse(engineError(503, 2.5), protocol);
      expect(response.status).toBe(503);
      expect(response.headers.get("x-should-retry")).toBe("true");
      expect(response.headers.get("retry-after")).toBe("3");
      expect(await response.json()).toEqual(body);
    }
  });

  it("should answer an engine 429 with 429 rate_limit_error, retryable, without retry-after when the engine sent none", async () => {
    const openai = toErrorResponse(engineError(429), "chat-completions");
    expect(openai.status).toBe(429);
    expect(openai.headers.get("x-should-retry")).toBe("true");
    expect(openai.headers.get("retry-after")).toBeNull();
    expect(await openai.json()).toEqual({
      error: {
        message: "the inference backend is overloaded: 429 busy at <engine>",
        type: "rate_limit_error",
        param: null,
        code: "backend_overloaded",
      },
    });
    const anthropic = toErrorResponse(engineError(429, 4), "anthropic-messages");
    expect(anthropic.status).toBe(429);
    expect(anthropic.headers.get("retry-after")).toBe("4");
    expect(((await anthropic.json()) as { error: { type: string } }).error.type).toBe("rate_limit_error");
  });

  it("should keep an engine 500 a non-retryable 502 without retry-after", () => {
    const response = toErrorResponse(engineError(500, 9), "chat-completions");
    expect(response.status).toBe(502);
    expect(response.headers.get("x-should-retry")).toBe("false");
    expect(response.headers.get("retry-after")).toBeNull();
  });
});
