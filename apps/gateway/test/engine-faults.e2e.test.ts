import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { TrainingRow } from "@relax/export";
import { readTrainingRowsFile } from "@relax/export";
import { createLogger } from "@relax/rollout";
import { type RolloutConfigInput, resolveConfig } from "@relax/runtime";
import type { StandinPolicy } from "@relax/standin";
import { afterEach, describe, expect, it } from "vitest";
import { runRollout } from "../src/run-rollout";
import {
  AGENT_HOME_ENV,
  expectRowMatchesEngine,
  fixture,
  type RecordedGenerate,
  startRecordingEngine,
} from "./helpers";

// Engine failures of in-flight turns (docs/contract.md#engine-failures): real agent processes
// (fixtures/echo-agent.mjs, the openai SDK with no retries), the stand-in engine (not a model) behind the
// recording proxy, faults injected on the stand-in itself while the agents generate.

/** A reply per turn, long enough that a fault lands mid-generation. */
const policy = (words: number): StandinPolicy => {
  return ({ promptText }) => {
    const turn = (promptText.match(/<\|im_start\|>assistant/g) ?? []).length;
    const body = Array.from({ length: words }, (_, i) => `w${i}`).join(" ");
    return { text: `Turn ${turn}: ${body}. Answer ${turn}.` };
  };
};

type Engine = Awaited<ReturnType<typeof startRecordingEngine>>;
const engines: Engine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});

async function startEngine(words: number, tokenLatencyMs: number): Promise<Engine> {
  const engine = await startRecordingEngine(policy(words), { tokenLatencyMs });
  engines.push(engine);
  return engine;
}

/** WARN and ERROR lines of the run, as text (`HH:MM:SS WARN message key=value`). */
function captureLog() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      callback();
    },
  });
  return { lines, logger: createLogger({ level: "warn", destination }) };
}

const sink = () =>
  new Writable({
    write(_chunk, _encoding, callback) {
      callback();
    },
  });

async function readRows(path: string): Promise<TrainingRow[]> {
  const rows: TrainingRow[] = [];
  for await (const row of readTrainingRowsFile(path)) rows.push(row);
  return rows;
}

function run(engine: Engine, flags: Partial<RolloutConfigInput>) {
  const dir = mkdtempSync(join(tmpdir(), "relax-faults-"));
  chmodSync(dir, 0o777);
  const log = captureLog();
  const config = resolveConfig(
    {},
    {
      metadataKey: "metadata",
      promptData: fixture("data.jsonl"),
      agentCommand: `${JSON.stringify(process.execPath)} ${fixture("echo-agent.mjs")}`,
      sglangUrl: [engine.url],
      agentWritesReward: true,
      output: join(dir, "rows.jsonl"),
      progress: false,
      logLevel: "warn",
      nSamplesPerPrompt: 2,
      rolloutBatchSize: 1,
      // Health re-checked every 0.2-1 s while turns are held, so a turn goes on soon after the engine is back.
      engineWaitInitial: 0.2,
      engineWaitMax: 1,
      ...flags,
      agentEnv: [...(flags.agentEnv ?? []), AGENT_HOME_ENV],
    },
  );
  const result = runRollout(config, { stdout: sink(), logger: log.logger });
  return { dir, log, result };
}

/** Every row is exactly the engine's output, concatenated across the interruption (the proxy's record). */
function expectRowsExact(rows: readonly TrainingRow[], generates: readonly RecordedGenerate[]) {
  const bySession = new Map<string, RecordedGenerate[]>();
  for (const call of generates) {
    const session = String(call.headers["x-smg-routing-key"]);
    bySession.set(session, [...(bySession.get(session) ?? []), call]);
  }
  for (const row of rows) {
    expectRowMatchesEngine(expect, row, bySession.get(row.session_id) ?? []);
    expect(row.status).toBe("completed");
  }
  return bySession;
}

const warnings = (lines: readonly string[], text: string) => lines.filter((line) => line.includes(text));

describe("engine failures of in-flight turns are held and continued (real agents, stand-in engine)", () => {
  for (const seconds of [10, 60]) {
    it(
      `should keep every turn through a ${seconds} s outage: 0 Groups dropped, rows exact, one stop and one resume WARN`,
      async () => {
        const engine = await startEngine(40, 25);
        const { dir, log, result } = run(engine, { agentEnv: ["AGENT_TURNS=2"] });
        await engine.engine.whenGenerated({ tokens: 3 });
        const inFlight = engine.engine.requests().length;
        engine.engine.startOutage({ durationMs: seconds * 1000 });
        const started = Date.now();
        const { summary } = await result;
        expect(Date.now() - started).toBeGreaterThanOrEqual(seconds * 1000);
        expect(summary.dropReasons).toEqual({});
        expect(summary.groupsDropped).toBe(0);
        expect(summary.groupsExported).toBe(1);
        const rows = await readRows(join(dir, "rows.jsonl"));
        expect(rows).toHaveLength(2);
        expectRowsExact(rows, engine.generates);
        expect(rows.map((row) => row.num_turns)).toEqual([2, 2]);
        // The turns in flight were held (one outage); none ran out of its budget.
        expect(summary.engineFaults).toMatchObject({ outages: 1, exhaustedTurns: 0 });
        expect(summary.engineFaults!.heldTurns).toBe(inFlight);
        expect(summary.engineFaults!.resumedTurns).toBe(inFlight);
        expect(warnings(log.lines, "AGENTIC engine failure: generation stopped")).toHaveLength(1);
        const resumed = warnings(log.lines, "AGENTIC engine generation resumed");
        expect(resumed).toHaveLength(1);
        expect(resumed[0]).toContain(`${inFlight} held turns continue`);
      },
      60_000 + seconds * 2000,
    );
  }

  it("should continue turns whose connection is reset after 2 tokens, with no token lost or doubled", async () => {
    const engine = await startEngine(30, 5);
    // The first three /generate calls are reset after their second token (nothing answered).
    engine.engine.injectFault({ fault: { type: "reset-after-tokens", tokens: 2 }, times: 3 });
    const { dir, log, result } = run(engine, { agentEnv: ["AGENT_TURNS=2"] });
    const { summary } = await result;
    expect(summary.dropReasons).toEqual({});
    expect(summary.groupsDropped).toBe(0);
    const rows = await readRows(join(dir, "rows.jsonl"));
    expect(rows).toHaveLength(2);
    const bySession = expectRowsExact(rows, engine.generates);
    // Two turns per session reached the row, each from exactly one answered call.
    expect([...bySession.values()].map((calls) => calls.length)).toEqual([2, 2]);
    expect(summary.engineFaults).toMatchObject({ heldTurns: 3, resumedTurns: 3, exhaustedTurns: 0 });
    expect(engine.engine.calls.filter((call) => call.path === "/generate")).toHaveLength(4 + 3);
    expect(warnings(log.lines, "AGENTIC engine failure: generation stopped").length).toBeGreaterThanOrEqual(
      1,
    );
  });

  it("should abort a hung engine call by rid after the progress timeout and continue it once the engine answers", async () => {
    const engine = await startEngine(30, 10);
    const { dir, log, result } = run(engine, { engineProgressTimeout: 1 });
    await engine.engine.whenGenerated({ tokens: 3 });
    engine.engine.startStall({ durationMs: 4_000 });
    const { summary } = await result;
    expect(summary.dropReasons).toEqual({});
    expect(summary.groupsDropped).toBe(0);
    const rows = await readRows(join(dir, "rows.jsonl"));
    expect(rows).toHaveLength(2);
    expectRowsExact(rows, engine.generates);
    expect(summary.engineFaults!.stalledCalls).toBeGreaterThanOrEqual(1);
    expect(summary.engineFaults!.exhaustedTurns).toBe(0);
    const stalled = warnings(log.lines, "made no progress");
    expect(stalled.length).toBe(summary.engineFaults!.stalledCalls);
    expect(stalled[0]).toContain(`worker=${engine.url}`);
    // The hung call was aborted on the engine by its rid.
    const aborts = engine.engine.calls.filter((call) => call.path === "/abort_request");
    expect(aborts.length).toBeGreaterThanOrEqual(1);
  });

  it("should survive slime's own weight sync on the engine while 16 sessions generate: 0 drops, exact rows, weight-version spans", async () => {
    const engine = await startEngine(120, 40);
    const { dir, result } = run(engine, {
      nSamplesPerPrompt: 4,
      rolloutBatchSize: 4,
      agenticConcurrency: 16,
    });
    await engine.engine.until(
      (requests) => requests.filter((request) => request.outputTokens >= 1).length >= 16,
    );
    // What slime does itself, directly on the engine (the gateway is not asked).
    const call = (path: string, body: unknown) =>
      fetch(`${engine.engine.url}${path}`, { method: "POST", body: JSON.stringify(body) });
    expect((await call("/pause_generation", { mode: "abort" })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await call("/flush_cache", {})).status).toBe(200);
    const update = await call("/update_weights_from_disk", { model_path: "/ckpt/2", weight_version: "v2" });
    expect(update.status).toBe(200);
    expect((await call("/continue_generation", {})).status).toBe(200);
    const { summary } = await result;
    expect(summary.dropReasons).toEqual({});
    expect(summary.groupsDropped).toBe(0);
    expect(summary.groupsExported).toBe(4);
    const rows = await readRows(join(dir, "rows.jsonl"));
    expect(rows).toHaveLength(16);
    const bySession = expectRowsExact(rows, engine.generates);
    for (const row of rows) {
      const calls = bySession.get(row.session_id)!;
      // The aborted call (its partial output under "default") and the continuation under "v2".
      expect(calls).toHaveLength(2);
      const [aborted, continued] = calls;
      expect(aborted!.response.meta_info.finish_reason.type).toBe("abort");
      expect(continued!.request.input_ids).toEqual([
        ...aborted!.request.input_ids,
        ...aborted!.response.output_ids,
      ]);
      const k = aborted!.response.output_ids.length;
      expect(k).toBeGreaterThanOrEqual(1);
      expect(row.weight_version_spans).toEqual([
        { version: "default", start: 0, end: k },
        { version: "v2", start: k, end: row.response_length },
      ]);
    }
    expect(summary.engineFaults).toMatchObject({ heldTurns: 16, resumedTurns: 16, exhaustedTurns: 0 });
  }, 180_000);

  it("should end a turn held past --engine-fault-hold-timeout with the engine's error and drop its Group as a backend drop", async () => {
    const engine = await startEngine(40, 25);
    const { dir, log, result } = run(engine, { engineFaultHoldTimeout: 2 });
    await engine.engine.whenGenerated({ tokens: 3 });
    engine.engine.startOutage({ durationMs: 6_000 });
    const { summary } = await result;
    // The first Group's turns ran out of their budget; its agents got the engine's error and failed.
    // The agent (openai SDK, no retries) exits non-zero on the 503: a backend drop, outside the drop budget.
    expect(summary.dropReasons).toEqual({ backend_agent_exit: 1 });
    expect(summary.groupsDropped).toBe(1);
    expect(summary.engineFaults!.exhaustedTurns).toBeGreaterThanOrEqual(1);
    // A new Group waited for the engine and exported; the dropped one committed nothing.
    expect(summary.groupsExported).toBe(1);
    const rows = await readRows(join(dir, "rows.jsonl"));
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((row) => row.session_id)).size).toBe(2);
    expectRowsExact(rows, engine.generates);
    expect(warnings(log.lines, "ran out of --engine-fault-hold-timeout").length).toBeGreaterThanOrEqual(1);
  }, 90_000);
});
