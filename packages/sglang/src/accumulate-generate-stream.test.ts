import { describe, expect, it } from "vitest";
import { GenerateStreamAccumulator } from "./accumulate-generate-stream";
import { SglangResponseError } from "./errors/sglang-response-error";
import type { GenerateResponseWire } from "./sglang-api";

const context = { url: "http://w1:30000", rid: "r1", inputTokens: 4 };
const lp: Record<number, number> = { 11: -0.1, 12: -0.2, 13: -0.3, 151645: -0.01 };
const triple = (id: number): [number, number, null] => [lp[id]!, id, null];

function chunk(
  ids: number[] | undefined,
  triples: number[] | undefined,
  extra: Partial<GenerateResponseWire["meta_info"]> = {},
): GenerateResponseWire {
  return {
    ...(ids === undefined ? {} : { output_ids: ids }),
    meta_info: {
      finish_reason: null,
      ...(triples === undefined ? {} : { output_token_logprobs: triples.map(triple) }),
      ...extra,
    },
  } as GenerateResponseWire;
}

const stop = { finish_reason: { type: "stop", matched: 151645 } };

function fold(chunks: GenerateResponseWire[]) {
  const accumulator = new GenerateStreamAccumulator(context);
  const deltas = chunks.map((item) => accumulator.push(item).outputIds);
  return { deltas, result: accumulator.result({ latencyMs: 1 }) };
}

describe("GenerateStreamAccumulator", () => {
  it("should fold cumulative chunks (SGLang's default)", () => {
    const { deltas, result } = fold([
      chunk([11], [11], { completion_tokens: 1 }),
      chunk([11, 12], [11, 12], { completion_tokens: 2 }),
      chunk([11, 12, 13, 151645], [11, 12, 13, 151645], { completion_tokens: 4, ...stop }),
    ]);
    expect(deltas).toEqual([[11], [12], [13, 151645]]);
    expect(result.outputIds).toEqual([11, 12, 13, 151645]);
    expect(result.outputLogprobs).toEqual([-0.1, -0.2, -0.3, -0.01]);
    expect(result.finishReason).toEqual({ type: "stop", matched: 151645 });
  });

  it("should fold incremental chunks (--incremental-streaming-output)", () => {
    const { result } = fold([
      chunk([11], [11], { completion_tokens: 1 }),
      chunk([12, 13], [12, 13], { completion_tokens: 3 }),
      chunk([151645], [151645], { completion_tokens: 4, ...stop }),
    ]);
    expect(result.outputIds).toEqual([11, 12, 13, 151645]);
    expect(result.outputLogprobs).toEqual([-0.1, -0.2, -0.3, -0.01]);
  });

  it("should fold the mixed hazard: delta ids with cumulative logprobs", () => {
    const { result } = fold([
      chunk([11], [11], { completion_tokens: 1 }),
      chunk([12], [11, 12], { completion_tokens: 2 }),
      chunk([13, 151645], [11, 12, 13, 151645], { completion_tokens: 4, ...stop }),
    ]);
    expect(result.outputIds).toEqual([11, 12, 13, 151645]);
    expect(result.outputLogprobs).toEqual([-0.1, -0.2, -0.3, -0.01]);
  });

  it("should detect cumulative ids without completion_tokens by the prefix", () => {
    const { result } = fold([
      chunk([11], [11]),
      chunk([11, 12], [11, 12]),
      chunk([11, 12, 151645], [11, 12, 151645], stop),
    ]);
    expect(result.outputIds).toEqual([11, 12, 151645]);
  });

  it("should handle a final chunk that repeats everything and adds nothing", () => {
    const { deltas, result } = fold([
      chunk([11, 12], [11, 12], { completion_tokens: 2 }),
      chunk([11, 12], [11, 12], { completion_tokens: 2, finish_reason: { type: "length", length: 2 } }),
    ]);
    expect(deltas).toEqual([[11, 12], []]);
    expect(result.finishReason).toEqual({ type: "length", length: 2 });
  });

  it("should reject a cumulative chunk that rewrites earlier ids", () => {
    const accumulator = new GenerateStreamAccumulator(context);
    accumulator.push(chunk([11, 12], [11, 12], { completion_tokens: 2 }));
    expect(() => accumulator.push(chunk([11, 13, 13], [11, 13, 13], { completion_tokens: 3 }))).toThrow(
      /does not extend the ids seen so far/,
    );
  });

  it("should reject logprobs that line up with neither mode", () => {
    const accumulator = new GenerateStreamAccumulator(context);
    accumulator.push(chunk([11], [11], { completion_tokens: 1 }));
    let caught: unknown;
    try {
      accumulator.push(chunk([12, 13], [11, 12, 13, 151645], { completion_tokens: 3 }));
    } catch (error) {
      caught = error;
    }
    expect(SglangResponseError.isInstance(caught)).toBe(true);
    expect((caught as SglangResponseError).path).toBe("chunk 1: meta_info.output_token_logprobs");
  });

  it("should refuse a result before the finishing chunk", () => {
    const accumulator = new GenerateStreamAccumulator(context);
    accumulator.push(chunk([11], [11], { completion_tokens: 1 }));
    expect(() => accumulator.result({ latencyMs: 0 })).toThrow(
      /ended before a chunk with meta_info.finish_reason/,
    );
  });
});
