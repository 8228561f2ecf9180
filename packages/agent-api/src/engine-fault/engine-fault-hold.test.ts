import {
  type GenerateOptions,
  type GenerateResult,
  type ServerHealth,
  SglangApiError,
  SglangConnectionError,
  SglangServerError,
} from "@relax/sglang";
import { describe, expect, it } from "vitest";
import { GenerationGate } from "../gate/generation-gate";
import { generateWithContinuation } from "../turn/generate-with-continuation";
import { classifyEngineFault, EngineFaultHold } from "./engine-fault-hold";
import { EngineFaultTotals } from "./engine-fault-totals";
import { withEngineFaultHold } from "./with-engine-fault-hold";

const STOP = 99;
const URL = "http://w0";

type Reply = (Partial<GenerateResult> & { outputIds: number[] }) | { throws: unknown } | { never: true };

/** A scripted engine: each call answers (or throws) the next reply; health answers from `health`. */
function scriptedEngine(replies: Reply[], health: () => boolean | "hang" = () => true) {
  const requests: GenerateOptions[] = [];
  const aborted: string[] = [];
  const inFlight = new Map<string, string>();
  const engine = {
    health: async (): Promise<ServerHealth[]> => {
      const answer = health();
      if (answer === "hang") return new Promise<ServerHealth[]>(() => undefined);
      return [{ url: URL, role: "worker", ok: answer }];
    },
    abort: async (rid: string) => {
      aborted.push(rid);
      return [];
    },
    inFlight: () => [...inFlight].map(([rid, url]) => ({ rid, url })),
  };
  const generate = (request: GenerateOptions): Promise<GenerateResult> => {
    requests.push(request);
    const reply = replies[requests.length - 1]!;
    inFlight.set(request.rid!, URL);
    if ("never" in reply) return new Promise<GenerateResult>(() => undefined);
    inFlight.delete(request.rid!);
    if ("throws" in reply) return Promise.reject(reply.throws);
    return Promise.resolve({
      rid: request.rid!,
      outputLogprobs: reply.outputIds.map((id) => -id / 100),
      finishReason: { type: "stop", matched: STOP },
      promptTokens: request.inputIds.length,
      completionTokens: reply.outputIds.length,
      cachedTokens: 0,
      latencyMs: 1,
      url: URL,
      ...reply,
    });
  };
  return { engine, requests, aborted, generate };
}

function logger() {
  const lines: string[] = [];
  return { lines, warn: (_fields: Record<string, unknown>, message: string) => lines.push(message) };
}

const base = {
  inputIds: [1, 2, 3],
  sampling: { maxNewTokens: 10, stopTokenIds: [STOP] },
  signal: new AbortController().signal,
  decode: (ids: readonly number[]) => ids.map(String).join(" "),
};
const budget = { waitInitialMs: 5, waitMaxMs: 20, progressTimeoutMs: 0 };
const engineAbort = { type: "abort", message: "Aborted" } as const;
const connectionError = () => new SglangConnectionError({ url: URL, message: "connection reset" });

describe("classifyEngineFault", () => {
  it("should name each engine failure and leave request errors and normal finishes alone", () => {
    expect(
      [
        { error: connectionError() },
        { error: new SglangServerError({ status: 503, body: {}, url: URL }) },
        { error: new SglangApiError({ status: 429, body: {}, url: URL }) },
        { error: new SglangApiError({ status: 400, body: {}, url: URL }) },
        { error: new Error("other") },
        { finishReason: engineAbort },
        { finishReason: { type: "abort", message: "too long", statusCode: 400 } as const },
        { finishReason: { type: "stop", matched: STOP } as const },
      ].map(classifyEngineFault),
    ).toEqual([
      "connection",
      "server_error",
      "server_error",
      undefined,
      undefined,
      "engine_abort",
      undefined,
      undefined,
    ]);
  });
});

describe("generateWithContinuation with an EngineFaultHold", () => {
  it("should continue an abort the gateway did not ask for from its partial output, under the new version", async () => {
    const { engine, requests, generate } = scriptedEngine([
      { outputIds: [10, 11], finishReason: engineAbort, weightVersion: "v1" },
      { outputIds: [12, STOP], weightVersion: "v2" },
    ]);
    const log = logger();
    const faults = new EngineFaultHold({ engine, logger: log, budget });
    const gate = new GenerationGate({ engine: { abort: async () => [] } });
    const result = await generateWithContinuation({ ...base, gate, generate, faults, sessionId: "s0" });
    expect(result).toMatchObject({
      outputIds: [10, 11, 12, STOP],
      outputLogprobs: [-0.1, -0.11, -0.12, -0.99],
      finishReason: { type: "stop", matched: STOP },
      completionTokens: 4,
      abortCount: 0,
      engineFaults: 1,
      kind: "resumed",
      weightVersionSpans: [
        { version: "v1", start: 0, end: 2 },
        { version: "v2", start: 2, end: 4 },
      ],
    });
    expect(requests.map((request) => [Array.from(request.inputIds), request.sampling?.maxNewTokens])).toEqual(
      [
        [[1, 2, 3], 10],
        [[1, 2, 3, 10, 11], 8],
      ],
    );
    expect(faults.counters).toEqual({
      outages: 1,
      heldTurns: 1,
      resumedTurns: 1,
      exhaustedTurns: 0,
      stalledCalls: 0,
    });
    expect(log.lines).toEqual([
      "AGENTIC engine failure: generation stopped; in-flight turns are held (agents' requests stay open, budgets paused) until the engine answers again",
      expect.stringMatching(/^AGENTIC engine generation resumed after \d+(\.\d)? s: 1 held turns continue$/),
    ]);
  });

  it("should hold a reset until the worker answers /health_generate, then send the turn again", async () => {
    let checks = 0;
    const { engine, requests, generate } = scriptedEngine(
      [{ throws: connectionError() }, { outputIds: [10, STOP] }],
      () => ++checks >= 3,
    );
    const faults = new EngineFaultHold({ engine, budget });
    const seen: boolean[] = [];
    faults.onChange((held) => seen.push(held));
    const result = await generateWithContinuation({ ...base, generate, faults });
    expect(result.outputIds).toEqual([10, STOP]);
    expect(result.engineFaults).toBe(1);
    expect(checks).toBe(3);
    expect(requests.map((request) => Array.from(request.inputIds))).toEqual([
      [1, 2, 3],
      [1, 2, 3],
    ]);
    expect(seen).toEqual([true, false]);
  });

  it("should end the turn with the engine's own error after --engine-fault-max-attempts failures", async () => {
    const errors = [connectionError(), connectionError(), connectionError()];
    const { engine, requests, generate } = scriptedEngine(errors.map((error) => ({ throws: error })));
    const log = logger();
    const faults = new EngineFaultHold({ engine, logger: log, budget: { ...budget, maxAttempts: 2 } });
    await expect(generateWithContinuation({ ...base, generate, faults })).rejects.toBe(errors[2]);
    expect(requests).toHaveLength(3);
    expect(faults.counters).toMatchObject({ heldTurns: 2, resumedTurns: 2, exhaustedTurns: 1 });
  });

  it("should end the turn with the engine's error when the engine stays down past --engine-fault-hold-timeout", async () => {
    const error = new SglangServerError({ status: 503, body: {}, url: URL });
    const { engine, generate } = scriptedEngine([{ throws: error }], () => false);
    const log = logger();
    const faults = new EngineFaultHold({ engine, logger: log, budget: { ...budget, holdTimeoutMs: 60 } });
    const started = performance.now();
    await expect(generateWithContinuation({ ...base, generate, faults })).rejects.toBe(error);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(faults.counters).toMatchObject({ heldTurns: 1, resumedTurns: 0, exhaustedTurns: 1 });
    expect(log.lines[1]).toMatch(
      / 1 held turns continue \(1 ran out of --engine-fault-hold-timeout \/ --engine-fault-max-attempts\)$/,
    );
  });

  it("should not hold an abort the engine gave a 4xx status (a request it refused)", async () => {
    const refused = { type: "abort", message: "input too long", statusCode: 400 } as const;
    const { engine, requests, generate } = scriptedEngine([{ outputIds: [], finishReason: refused }]);
    const faults = new EngineFaultHold({ engine, budget });
    const result = await generateWithContinuation({ ...base, generate, faults });
    expect(result.finishReason).toEqual(refused);
    expect(requests).toHaveLength(1);
    expect(faults.counters.heldTurns).toBe(0);
  });

  it("should give up a held turn when its request aborts (client disconnect)", async () => {
    const { engine, generate } = scriptedEngine([{ throws: connectionError() }], () => false);
    const faults = new EngineFaultHold({ engine, budget });
    const controller = new AbortController();
    const run = generateWithContinuation({ ...base, signal: controller.signal, generate, faults });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(faults.held).toBe(1);
    controller.abort(new Error("client went away"));
    await expect(run).rejects.toThrow("client went away");
    expect(faults.held).toBe(0);
  });

  it("should abort a call of a hung worker by rid after the progress timeout and continue the turn", async () => {
    let hung = true;
    const { engine, requests, aborted, generate } = scriptedEngine(
      [{ never: true }, { outputIds: [10, STOP] }],
      () => (hung ? "hang" : true),
    );
    const log = logger();
    const faults = new EngineFaultHold({ engine, logger: log, budget: { ...budget, progressTimeoutMs: 30 } });
    const run = generateWithContinuation({ ...base, generate, faults });
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(aborted).toEqual([requests[0]!.rid]);
    hung = false;
    const result = await run;
    expect(result.outputIds).toEqual([10, STOP]);
    expect(faults.counters).toMatchObject({ stalledCalls: 1, heldTurns: 1, resumedTurns: 1 });
    expect(log.lines[0]).toMatch(
      /^AGENTIC engine call made no progress for 0 s and its worker does not answer \/health_generate: aborted by rid, the turn is held$/,
    );
  });

  it("should keep waiting for a slow call while its worker answers /health_generate", async () => {
    let resolveCall!: (result: GenerateResult) => void;
    const call = new Promise<GenerateResult>((resolve) => {
      resolveCall = resolve;
    });
    const { engine } = scriptedEngine([]);
    const faults = new EngineFaultHold({ engine, budget: { ...budget, progressTimeoutMs: 10 } });
    const watched = faults.watch(call, { rid: "r0" });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const result = { rid: "r0", outputIds: [STOP] } as unknown as GenerateResult;
    resolveCall(result);
    await expect(watched).resolves.toBe(result);
    expect(faults.counters.stalledCalls).toBe(0);
  });
});

describe("EngineFaultTotals (sharded gateway)", () => {
  it("should sum shards into one episode and one pair of WARN lines, and drop a dead shard's held turns", () => {
    const log = logger();
    const totals = new EngineFaultTotals(log);
    const counters = (held: number, resumed = 0) => ({
      outages: 0,
      heldTurns: held,
      resumedTurns: resumed,
      exhaustedTurns: 0,
      stalledCalls: 0,
    });
    const fault = { kind: "connection", message: "reset", worker: URL };
    totals.update(0, { held: 1, counters: counters(1) }, fault);
    totals.update(1, { held: 2, counters: counters(2) }, fault);
    expect(totals.held).toBe(3);
    totals.update(0, { held: 0, counters: counters(1, 1) });
    totals.forget(1);
    expect(totals.held).toBe(0);
    expect(totals.counters).toEqual({ ...counters(3, 1), outages: 1 });
    expect(log.lines).toHaveLength(2);
    expect(log.lines[1]).toMatch(/: 3 held turns continue$/);
  });
});

describe("withEngineFaultHold", () => {
  it("should read closed while turns are held on an open gate, and tell each change", async () => {
    const { engine, generate } = scriptedEngine([{ throws: connectionError() }, { outputIds: [STOP] }]);
    const faults = new EngineFaultHold({ engine, budget });
    const gate = new GenerationGate({ engine: { abort: async () => [] } });
    const view = withEngineFaultHold(gate, faults);
    const states: string[] = [];
    view.onChange(({ state }) => states.push(state));
    expect(view.state).toBe("open");
    await generateWithContinuation({ ...base, generate, faults });
    expect(states).toEqual(["paused", "open"]);
  });
});
