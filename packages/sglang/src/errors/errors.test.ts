import { describe, expect, it } from "vitest";
import { ContextLengthError } from "./context-length-error";
import { createSglangError } from "./create-sglang-error";
import { parseContextLengthMessage } from "./parse-context-length-message";
import { SglangApiError } from "./sglang-api-error";
import { SglangConnectionError } from "./sglang-connection-error";
import { SglangError } from "./sglang-error";
import { SglangServerError } from "./sglang-server-error";

const requested =
  "Requested token count exceeds the model's maximum context length of 4096 tokens. You requested a total of " +
  "4296 tokens: 4000 tokens from the input messages and 296 tokens for the completion. Please reduce the number " +
  "of tokens in the input messages or the completion to fit within the limit.";
const input = "The input (5000 tokens) is longer than the model's context length (4096 tokens).";

describe("parseContextLengthMessage", () => {
  it("should read every number of the 'Requested token count exceeds' wording", () => {
    expect(parseContextLengthMessage(requested)).toEqual({
      maxContextLength: 4096,
      totalTokens: 4296,
      promptTokens: 4000,
      requestedTokens: 296,
    });
  });

  it("should read the 'The input (N tokens) is longer' wording", () => {
    expect(parseContextLengthMessage(input)).toEqual({ promptTokens: 5000, maxContextLength: 4096 });
  });

  it("should accept the short form and reject unrelated messages", () => {
    expect(
      parseContextLengthMessage(
        "Requested token count exceeds the model's maximum context length of 32768 tokens.",
      ),
    ).toEqual({
      maxContextLength: 32768,
    });
    expect(
      parseContextLengthMessage("Either text, input_ids or input_embeds should be provided."),
    ).toBeUndefined();
  });
});

describe("createSglangError", () => {
  const url = "http://w1:30000/generate";

  it("should map SGLang's 400 context-length body to ContextLengthError with the numbers", () => {
    const error = createSglangError({ url, status: 400, body: { error: { message: requested } } });
    expect(ContextLengthError.isInstance(error)).toBe(true);
    expect(SglangApiError.isInstance(error)).toBe(true);
    const typed = error as ContextLengthError;
    expect(typed).toMatchObject({
      status: 400,
      url,
      promptTokens: 4000,
      maxContextLength: 4096,
      requestedTokens: 296,
    });
    expect(typed.message).toBe(`400 ${requested}`);
    expect(typed.isRetryable).toBe(false);
  });

  it("should read the OpenAI-layer body shape too", () => {
    const error = createSglangError({
      url,
      status: 400,
      body: { object: "error", message: input, code: 400 },
    });
    expect((error as ContextLengthError).promptTokens).toBe(5000);
  });

  it("should type 5xx as SglangServerError, retryable", () => {
    const error = createSglangError({ url, status: 503, body: "" });
    expect(SglangServerError.isInstance(error)).toBe(true);
    expect(error.isRetryable).toBe(true);
    expect(error.message).toBe("503 (empty body)");
  });

  it("should keep other statuses as SglangApiError with the server message", () => {
    const error = createSglangError({
      url,
      status: 400,
      body: { error: { message: "Duplicate request ID detected: x" } },
    });
    expect(error.name).toBe("SglangApiError");
    expect(error.message).toBe("400 Duplicate request ID detected: x");
    expect(
      createSglangError({ url, status: 422, body: { detail: [{ loc: ["body"], msg: "bad" }] } }).message,
    ).toBe('422 [{"loc":["body"],"msg":"bad"}]');
  });

  it("should type a missing response as SglangConnectionError with the cause's code", () => {
    const cause = new TypeError("fetch failed", {
      cause: Object.assign(new Error("x"), { code: "ECONNREFUSED" }),
    });
    const error = createSglangError({ url, cause });
    expect(SglangConnectionError.isInstance(error)).toBe(true);
    expect(error.message).toBe(`connection to ${url} failed (ECONNREFUSED)`);
    expect(error.cause).toBe(cause);
  });

  it("should recognise errors by marker across copies, not by prototype", () => {
    const foreign = {
      [Symbol.for("relax.error.SglangError")]: true,
      [Symbol.for("relax.error.ContextLengthError")]: true,
    };
    expect(SglangError.isInstance(foreign)).toBe(true);
    expect(ContextLengthError.isInstance(foreign)).toBe(true);
    expect(SglangServerError.isInstance(foreign)).toBe(false);
    expect(SglangError.isInstance(new Error("plain"))).toBe(false);
  });
});
