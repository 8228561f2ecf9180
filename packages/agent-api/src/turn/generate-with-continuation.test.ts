import type { GenerateOptions, GenerateResult } from "@relax/sglang";
import { describe, expect, it } from "vitest";
import { GenerationGate } from "../gate/generation-gate";
import { continuationEnd, generateWithContinuation } from "./generate-with-continuation";

const STOP = 99;

/**
 * A scripted engine: each call answers the next reply; a reply marked `pausedAt` makes the gate pause
 * during the call (so the abort is the gate's), as a real pause landing mid-generation would.
 */
function scriptedEngine(
  gate: GenerationGate | undefined,
  replies: Array<Partial<GenerateResult> & { outputIds: number[]; pause?: boolean }>,
) {
  const requests: GenerateOptions[] = [];
  const generate = async (request: GenerateOptions): Promise<GenerateResult> => {
    requests.push(request);
    const reply = replies[requests.length - 1]!;
    if (reply.pause) void gate!.pause();
    return {
      rid: request.rid!,
      outputLogprobs: reply.outputIds.map((id) => -id / 100),
      finishReason: { type: "stop", matched: STOP },
      promptTokens: request.inputIds.length,
      completionTokens: reply.outputIds.length,
      cachedTokens: 0,
      latencyMs: 1,
      url: "http://w0",
      ...reply,
    };
  };
  return { requests, generate };
}

const abort = { type: "abort", message: "Abort before prefill" } as const;
const signal = new AbortController().signal;
const base = {
  inputIds: [1, 2, 3],
  sampling: { maxNewTokens: 10, stopTokenIds: [STOP], seed: 42 },
  signal,
  decode: (ids: readonly number[]) => ids.map((id) => String.fromCharCode(96 + (id % 26))).join(""),
};

describe("generateWithContinuation", () => {
  it("should label unnamed segments with the gate's version and keep the seed across the continuation", async () => {
    const gate = new GenerationGate({ engine: { abort: async () => [] }, weightVersion: "v1" });
    const { requests, generate } = scriptedEngine(gate, [
      { outputIds: [10, 11], finishReason: abort, pause: true },
      { outputIds: [12, STOP] },
    ]);
    const run = generateWithContinuation({ ...base, gate, generate });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(gate.state).toBe("paused");
    gate.resume({ weightVersion: "v2" });
    const result = await run;
    expect(result).toMatchObject({
      outputIds: [10, 11, 12, STOP],
      outputLogprobs: [-0.1, -0.11, -0.12, -0.99],
      finishReason: { type: "stop", matched: STOP },
      promptTokens: 3,
      completionTokens: 4,
      abortCount: 1,
      weightVersionSpans: [
        { version: "v1", start: 0, end: 2 },
        { version: "v2", start: 2, end: 4 },
      ],
    });
    expect(result.weightVersion).toBeUndefined();
    expect(requests.map((request) => Array.from(request.inputIds))).toEqual([
      [1, 2, 3],
      [1, 2, 3, 10, 11],
    ]);
    expect(requests.map((request) => request.sampling)).toEqual([
      { maxNewTokens: 10, stopTokenIds: [STOP], seed: 42 },
      { maxNewTokens: 8, stopTokenIds: [STOP], seed: 42 },
    ]);
    expect(result.rids).toEqual(requests.map((request) => request.rid));
  });

  it("should shift the engine's own weight_versions spans by the segment offset", async () => {
    const gate = new GenerationGate({ engine: { abort: async () => [] }, weightVersion: "trainer" });
    const { generate } = scriptedEngine(gate, [
      {
        outputIds: [10, 11, 12],
        finishReason: abort,
        pause: true,
        weightVersion: "e2",
        weightVersionSpans: [
          { version: "e1", start: 0, end: 1 },
          { version: "e2", start: 1, end: 3 },
        ],
      },
      {
        outputIds: [13, STOP],
        weightVersion: "e3",
        weightVersionSpans: [{ version: "e3", start: 0, end: 2 }],
      },
    ]);
    const run = generateWithContinuation({ ...base, gate, generate });
    await new Promise((resolve) => setTimeout(resolve, 5));
    gate.resume();
    expect((await run).weightVersionSpans).toEqual([
      { version: "e1", start: 0, end: 1 },
      { version: "e2", start: 1, end: 3 },
      { version: "e3", start: 3, end: 5 },
    ]);
  });

  it("should not continue a partial that ends in a stop token or used the whole budget", async () => {
    for (const [outputIds, finishReason] of [
      [[10, STOP], { type: "stop", matched: STOP }],
      [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], { type: "length", length: 10 }],
    ] as const) {
      const gate = new GenerationGate({ engine: { abort: async () => [] } });
      const { requests, generate } = scriptedEngine(gate, [
        { outputIds: [...outputIds], finishReason: abort, pause: true, weightVersion: "w" },
      ]);
      const result = await generateWithContinuation({ ...base, gate, generate });
      expect(requests).toHaveLength(1);
      expect(result).toMatchObject({ finishReason, abortCount: 1, weightVersion: "w" });
      gate.resume();
    }
  });

  it("should stop at a stop string already in the partial", async () => {
    const gate = new GenerationGate({ engine: { abort: async () => [] } });
    // decode: 1 → "a", 2 → "b"
    const { requests, generate } = scriptedEngine(gate, [
      { outputIds: [1, 2], finishReason: abort, pause: true },
    ]);
    const result = await generateWithContinuation({
      ...base,
      sampling: { ...base.sampling, stop: ["ab"] },
      gate,
      generate,
    });
    expect(requests).toHaveLength(1);
    expect(result.finishReason).toEqual({ type: "stop", matched: "ab" });
  });

  it("should return an engine-side abort as it is, and report no spans when a segment has no label", async () => {
    const gate = new GenerationGate({ engine: { abort: async () => [] } });
    const engineAbort = scriptedEngine(gate, [{ outputIds: [10], finishReason: abort }]);
    const aborted = await generateWithContinuation({ ...base, gate, generate: engineAbort.generate });
    expect(engineAbort.requests).toHaveLength(1);
    expect(aborted).toMatchObject({ finishReason: abort, abortCount: 0 });

    const unlabelled = scriptedEngine(gate, [
      { outputIds: [10], finishReason: abort, pause: true },
      { outputIds: [STOP], weightVersion: "v9" },
    ]);
    const run = generateWithContinuation({ ...base, gate, generate: unlabelled.generate });
    await new Promise((resolve) => setTimeout(resolve, 5));
    gate.resume();
    const result = await run;
    expect(result.outputIds).toEqual([10, STOP]);
    expect(result.weightVersionSpans).toBeUndefined();
    expect(result.weightVersion).toBeUndefined();
  });
});

describe("continuationEnd", () => {
  const decode = (ids: readonly number[]) => ids.map((id) => String.fromCharCode(96 + id)).join("");
  it("should end a partial on its last stop token id, a stop string, or the spent budget, else continue it", () => {
    expect(continuationEnd([1, STOP], 8, new Set([STOP]), decode, undefined)).toEqual({
      type: "stop",
      matched: STOP,
    });
    expect(continuationEnd([1, 2, 3], 8, new Set(), decode, ["x", "bc"])).toEqual({
      type: "stop",
      matched: "bc",
    });
    expect(continuationEnd([1, 2], 2, new Set(), decode, "")).toEqual({ type: "length", length: 2 });
    expect(continuationEnd([STOP, 1], 8, new Set([STOP]), decode, "z")).toBeUndefined();
    expect(continuationEnd([], 8, new Set([STOP]), decode, undefined)).toBeUndefined();
  });
});
