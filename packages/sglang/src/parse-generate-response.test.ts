import { describe, expect, it } from "vitest";
import { SglangResponseError } from "./errors/sglang-response-error";
import { parseGenerateResponse } from "./parse-generate-response";

const context = {
  url: "http://w1:30000",
  rid: "9f1c2a7e4b6d4c0e8a1b2c3d4e5f6071",
  inputTokens: 26,
  latencyMs: 5,
};

function parseError(body: unknown, options: Partial<typeof context> & { returnLogprob?: boolean } = {}) {
  try {
    parseGenerateResponse(body, { ...context, ...options });
  } catch (error) {
    expect(SglangResponseError.isInstance(error)).toBe(true);
    return error as SglangResponseError;
  }
  throw new Error("expected a SglangResponseError");
}

describe("parseGenerateResponse on SGLang v0.5 shapes", () => {
  it("should parse the reference non-streaming reply (EOS matched, stop token included)", () => {
    const body = {
      text: "2+2 equals 4.",
      output_ids: [17, 10, 17, 16819, 220, 19, 13, 151645],
      meta_info: {
        id: "9f1c2a7e4b6d4c0e8a1b2c3d4e5f6071",
        finish_reason: { type: "stop", matched: 151645 },
        prompt_tokens: 26,
        completion_tokens: 8,
        cached_tokens: 24,
        weight_version: "default",
        input_token_logprobs: [],
        output_token_logprobs: [
          [-0.0021, 17, null],
          [-0.31, 10, null],
          [-0.0004, 17, null],
          [-0.05, 16819, null],
          [-0.0001, 220, null],
          [-0.0003, 19, null],
          [-0.02, 13, null],
          [-0.0008, 151645, null],
        ],
        e2e_latency: 0.142,
      },
    };
    expect(parseGenerateResponse(body, context)).toEqual({
      rid: "9f1c2a7e4b6d4c0e8a1b2c3d4e5f6071",
      outputIds: [17, 10, 17, 16819, 220, 19, 13, 151645],
      outputLogprobs: [-0.0021, -0.31, -0.0004, -0.05, -0.0001, -0.0003, -0.02, -0.0008],
      finishReason: { type: "stop", matched: 151645 },
      promptTokens: 26,
      completionTokens: 8,
      cachedTokens: 24,
      weightVersion: "default",
      e2eLatencySeconds: 0.142,
      latencyMs: 5,
      url: "http://w1:30000",
    });
  });

  it("should keep a stop-string match and every generated token", () => {
    const body = {
      text: "The answer",
      output_ids: [785, 4226, 374],
      meta_info: {
        finish_reason: { type: "stop", matched: "is" },
        prompt_tokens: 26,
        completion_tokens: 3,
        output_token_logprobs: [
          [-0.1, 785, "The"],
          [-0.2, 4226, " answer"],
          [-0.3, 374, " is"],
        ],
      },
    };
    const result = parseGenerateResponse(body, context);
    expect(result.finishReason).toEqual({ type: "stop", matched: "is" });
    expect(result.outputIds).toEqual([785, 4226, 374]);
    expect(result.outputLogprobs).toEqual([-0.1, -0.2, -0.3]);
  });

  it("should parse a length finish", () => {
    const body = {
      text: "ab",
      output_ids: [64, 65],
      meta_info: {
        finish_reason: { type: "length", length: 2 },
        prompt_tokens: 3,
        completion_tokens: 2,
        cached_tokens: 0,
        output_token_logprobs: [
          [-1.5, 64, null],
          [-0.5, 65, null],
        ],
      },
    };
    expect(parseGenerateResponse(body, context).finishReason).toEqual({ type: "length", length: 2 });
  });

  it("should parse a newer build's abort (status_code, err_type) and weight_versions spans", () => {
    const body = {
      text: "Let me chec",
      output_ids: [10061, 752, 1779],
      meta_info: {
        id: "9f1c",
        finish_reason: { type: "abort", message: "Aborted", status_code: null, err_type: null },
        prompt_tokens: 26,
        completion_tokens: 3,
        cached_tokens: 0,
        weight_version: "v17",
        weight_versions: [
          { version: "v16", start: 0, end: 2 },
          { version: "v17", start: 2, end: 3 },
        ],
        output_token_logprobs: [
          [-0.4, 10061, null],
          [-0.3, 752, null],
          [-0.2, 1779, null],
        ],
        e2e_latency: 3.2,
        response_sent_to_client_ts: 1765432100.5,
        spec_verify_ct: 0,
      },
    };
    const result = parseGenerateResponse(body, context);
    expect(result.finishReason).toEqual({ type: "abort", message: "Aborted" });
    expect(result.weightVersionSpans).toEqual([
      { version: "v16", start: 0, end: 2 },
      { version: "v17", start: 2, end: 3 },
    ]);
    expect(result.outputIds).toEqual([10061, 752, 1779]);
  });

  it("should keep the abort's status_code and err_type when present", () => {
    const body = {
      output_ids: [],
      meta_info: {
        finish_reason: {
          type: "abort",
          message: "Out of memory",
          status_code: 503,
          err_type: "ServiceUnavailable",
        },
        output_token_logprobs: [],
      },
    };
    expect(parseGenerateResponse(body, context).finishReason).toEqual({
      type: "abort",
      message: "Out of memory",
      statusCode: 503,
      errType: "ServiceUnavailable",
    });
  });

  it("should accept a reply without text (--skip-tokenizer-init)", () => {
    const body = {
      output_ids: [5, 151645],
      meta_info: {
        finish_reason: { type: "stop", matched: 151645 },
        prompt_tokens: 4,
        completion_tokens: 2,
        output_token_logprobs: [
          [-0.1, 5, null],
          [-0.2, 151645, null],
        ],
      },
    };
    expect(parseGenerateResponse(body, context).outputIds).toEqual([5, 151645]);
  });
});

describe("parseGenerateResponse on older shapes", () => {
  it("should accept two-element logprob pairs, a numeric weight label and missing counters", () => {
    const body = {
      text: "hi",
      output_ids: [6023, 151645],
      meta_info: {
        finish_reason: { type: "stop", matched: 151645 },
        weight_version: 3,
        output_token_logprobs: [
          [-0.7, 6023],
          [-0.01, 151645],
        ],
      },
    };
    const result = parseGenerateResponse(body, context);
    expect(result).toMatchObject({
      outputIds: [6023, 151645],
      outputLogprobs: [-0.7, -0.01],
      promptTokens: 26,
      completionTokens: 2,
      cachedTokens: 0,
      weightVersion: "3",
    });
    expect(result.e2eLatencySeconds).toBeUndefined();
  });

  it("should pick the matched id from an old list-valued matched", () => {
    const body = {
      output_ids: [9, 151643],
      meta_info: {
        finish_reason: { type: "stop", matched: [151645, 151643] },
        output_token_logprobs: [
          [-0.1, 9, null],
          [-0.1, 151643, null],
        ],
      },
    };
    expect(parseGenerateResponse(body, context).finishReason).toEqual({ type: "stop", matched: 151643 });
  });

  it("should give an empty output for an abort before prefill without output_ids or logprobs", () => {
    const body = {
      text: "",
      meta_info: {
        id: "9f1c",
        finish_reason: { type: "abort", message: "Abort before prefill" },
        prompt_tokens: 0,
        completion_tokens: 0,
      },
    };
    expect(parseGenerateResponse(body, context)).toMatchObject({
      outputIds: [],
      outputLogprobs: [],
      finishReason: { type: "abort", message: "Abort before prefill" },
      promptTokens: 0,
      completionTokens: 0,
    });
  });

  it("should take the ids from the logprob triples when an abort reply lacks output_ids", () => {
    const body = {
      text: "Let",
      meta_info: {
        finish_reason: { type: "abort", message: "Unknown error", status_code: null, err_type: null },
        prompt_tokens: 26,
        completion_tokens: 2,
        output_token_logprobs: [
          [-0.4, 10061, null],
          [-0.3, 752, null],
        ],
      },
    };
    const result = parseGenerateResponse(body, context);
    expect(result.outputIds).toEqual([10061, 752]);
    expect(result.outputLogprobs).toEqual([-0.4, -0.3]);
  });

  it("should accept the newer waiting-queue abort with empty output_ids", () => {
    const body = {
      text: "",
      output_ids: [],
      meta_info: { finish_reason: { type: "abort", message: "Abort in waiting queue" }, prompt_tokens: 26 },
    };
    expect(parseGenerateResponse(body, context).outputIds).toEqual([]);
  });

  it("should unwrap a one-element array reply", () => {
    const body = [
      {
        output_ids: [1],
        meta_info: { finish_reason: { type: "length", length: 1 }, output_token_logprobs: [[-0.5, 1, null]] },
      },
    ];
    expect(parseGenerateResponse(body, context).outputIds).toEqual([1]);
  });
});

describe("parseGenerateResponse on untrusted shapes", () => {
  const meta = { finish_reason: { type: "stop", matched: 151645 } };

  it("should reject a logprob count that differs from the output count", () => {
    const error = parseError({
      output_ids: [1, 2, 151645],
      meta_info: {
        ...meta,
        output_token_logprobs: [
          [-0.1, 1, null],
          [-0.1, 2, null],
        ],
      },
    });
    expect(error.path).toBe("meta_info.output_token_logprobs");
    expect(error.reason).toBe("has 2 entries but output_ids has 3");
    expect(error.rid).toBe(context.rid);
  });

  it("should reject triple token ids that differ from output_ids, naming the position", () => {
    const error = parseError({
      output_ids: [1, 2, 151645],
      meta_info: {
        ...meta,
        output_token_logprobs: [
          [-0.1, 1, null],
          [-0.1, 3, null],
          [-0.1, 151645, null],
        ],
      },
    });
    expect(error.path).toBe("meta_info.output_token_logprobs[1][1]");
    expect(error.reason).toBe("token id 3 differs from output_ids[1] = 2");
  });

  it("should reject a null output logprob", () => {
    const error = parseError({
      output_ids: [1],
      meta_info: { ...meta, output_token_logprobs: [[null, 1, null]] },
    });
    expect(error.path).toBe("meta_info.output_token_logprobs[0][0]");
  });

  it("should reject missing logprobs when they were requested, and accept them missing otherwise", () => {
    const body = { output_ids: [1, 151645], meta_info: meta };
    expect(parseError(body).path).toBe("meta_info.output_token_logprobs");
    expect(parseGenerateResponse(body, { ...context, returnLogprob: false })).toMatchObject({
      outputIds: [1, 151645],
      outputLogprobs: [],
    });
  });

  it("should reject an unknown finish type and a missing finish reason", () => {
    expect(parseError({ output_ids: [], meta_info: { finish_reason: { type: "eos" } } }).path).toBe(
      "meta_info.finish_reason.type",
    );
    expect(parseError({ output_ids: [], meta_info: { finish_reason: null } }).path).toBe(
      "meta_info.finish_reason",
    );
  });

  it("should name the field of a wrongly typed value", () => {
    expect(parseError({ output_ids: "1 2 3", meta_info: meta }).path).toBe("output_ids");
    expect(parseError({ output_ids: [1.5], meta_info: meta }).path).toBe("output_ids[0]");
    expect(parseError({ output_ids: [] }).path).toBe("meta_info");
  });

  it("should name the per-token entry that fails, ids and triples alike (checked without zod when valid)", () => {
    const triples = [
      [-0.1, 1, null],
      [-0.2, 151645],
    ];
    expect(parseError({ output_ids: [1, -2], meta_info: meta }).path).toBe("output_ids[1]");
    // biome-ignore lint/suspicious/noSparseArray: a hole is read as undefined, as zod reads it
    expect(parseError({ output_ids: [1, , 3], meta_info: meta }).path).toBe("output_ids[1]");
    const badTriple = { ...meta, output_token_logprobs: [triples[0], [-0.2, 151645, 7]] };
    expect(parseError({ output_ids: [1, 151645], meta_info: badTriple }).path).toBe(
      "meta_info.output_token_logprobs[1]",
    );
    const tooLong = { ...meta, output_token_logprobs: [[-0.1, 1, null, null]] };
    expect(parseError({ output_ids: [1], meta_info: tooLong }).path).toBe(
      "meta_info.output_token_logprobs[0]",
    );
    const infinite = { ...meta, output_token_logprobs: [[Number.POSITIVE_INFINITY, 1, null]] };
    expect(parseError({ output_ids: [1], meta_info: infinite }).path).toBe(
      "meta_info.output_token_logprobs[0]",
    );
    const valid = { output_ids: [1, 151645], meta_info: { ...meta, output_token_logprobs: triples } };
    expect(parseGenerateResponse(valid, context)).toMatchObject({
      outputIds: [1, 151645],
      outputLogprobs: [-0.1, -0.2],
    });
  });

  it("should reject a batch reply", () => {
    expect(parseError([{}, {}]).reason).toBe(
      "expected one response object, got an array of 2 (a batch or n > 1 reply)",
    );
  });
});
