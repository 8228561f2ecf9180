import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { TrainingRow } from "@relax/export";
import type { GroupResult } from "@relax/rollout";
import type { RolloutConfigInput } from "@relax/runtime";
import { createRolloutRuntime, resolveConfig } from "@relax/runtime";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { standinStarter } from "../src/engine/standin-starter";
import {
  AGENT_HOME_ENV,
  expectRowMatchesEngine,
  fixture,
  leftoverAgentProcesses,
  type RecordedGenerate,
  startRecordingEngine,
} from "./helpers";

// The stand-in engine's scripted policy (not a model): a fixed answer per turn.
const policy = (request: { promptText: string }) => {
  const turn = (request.promptText.match(/<\|im_start\|>assistant/g) ?? []).length;
  return { text: `Answer ${turn}.` };
};

/** A logger whose lines are kept (JSON objects) for assertions. */
function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { logger: pino({ level: "info" }, stream), lines };
}

function callsBySession(generates: RecordedGenerate[]): Map<string, RecordedGenerate[]> {
  const bySession = new Map<string, RecordedGenerate[]>();
  for (const call of generates) {
    const session = String(call.headers["x-smg-routing-key"]);
    bySession.set(session, [...(bySession.get(session) ?? []), call]);
  }
  return bySession;
}

type Runtime = Awaited<ReturnType<typeof createRolloutRuntime>>;

type SessionParams = { id: string; rid?: string; offset?: number; replace?: boolean };

/**
 * One session's `/generate` calls with `session_params`, each rebuilt into the full ids the engine ran:
 * SGLang's `(previous prompt + output)[:offset] + input_ids` (the previous request named by `rid`).
 */
function withFullIds(calls: RecordedGenerate[]): RecordedGenerate[] {
  const ran = new Map<string, number[]>();
  return calls.map((call) => {
    const params = (call.request as { session_params?: SessionParams }).session_params;
    const before = params?.rid !== undefined ? ran.get(params.rid)! : [];
    const input_ids = [...before.slice(0, params?.offset ?? before.length), ...call.request.input_ids];
    ran.set(call.request.rid, [...input_ids, ...call.response.output_ids]);
    return { ...call, request: { ...call.request, input_ids } };
  });
}

/** What a row holds, for comparing the rows of two runs whose session ids differ. */
const rowContent = (row: { tokens: number[]; prompt_length: number; loss_mask: number[] }) =>
  JSON.stringify([row.tokens, row.prompt_length, row.loss_mask]);

/**
 * Runs step 0 and, once one shard's Group is past its first request (mid-Group, requests in flight),
 * sends that shard `signal`. Returns the step, every Group result and the shard hit.
 */
async function runStepSignallingAShard(runtime: Runtime, signal: NodeJS.Signals) {
  const shards = runtime.shards!;
  let hit: { index: number; pid: number } | undefined;
  const watcher = setInterval(() => {
    if (hit !== undefined) return;
    for (const status of shards.status()) {
      if (status.state !== "ready" || status.pid === undefined) continue;
      const active = runtime.registry
        .list()
        .find((session) => shards.shardOf(session.groupId) === status.index && session.requests > 0);
      if (active === undefined) continue;
      hit = { index: status.index, pid: status.pid };
      process.kill(status.pid, signal);
      return;
    }
  }, 20);
  const results: GroupResult[] = [];
  const step = await runtime
    .runStep({ rolloutId: 0, mode: "train", onGroup: (result) => results.push(result) })
    .finally(() => clearInterval(watcher));
  expect(hit).toBeDefined();
  return { step, results, hit: hit! };
}

/** Every dropped Group was on the shard hit and dropped `shard_failed` with `message`; returns the drops. */
function expectOnlyItsGroupsDropped(
  runtime: Runtime,
  results: GroupResult[],
  index: number,
  message: RegExp,
) {
  const dropped = results.filter((result) => result.kind === "dropped");
  expect(dropped.length).toBeGreaterThanOrEqual(1);
  for (const result of dropped) {
    expect(result.kind === "dropped" && result.reason).toBe("shard_failed");
    expect(runtime.shards!.shardOf(result.groupId)).toBe(index);
    expect(result.kind === "dropped" && result.message).toMatch(message);
  }
  return dropped;
}

/** Waits (up to 30 s) for shard `index` to be ready again: a restart loads the tokenizer again. */
async function waitReady(runtime: Runtime, index: number): Promise<void> {
  for (let wait = 0; wait < 300 && runtime.shards!.status()[index]!.state !== "ready"; wait++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("--gateway-shards (real agent processes, stand-in engine)", () => {
  let engine: Awaited<ReturnType<typeof startRecordingEngine>>;
  beforeAll(async () => {
    // 5 ms per token: turns last long enough for a shard to die in the middle of a Group.
    engine = await startRecordingEngine(policy, { tokenLatencyMs: 5 });
  });
  afterAll(async () => {
    await engine.close();
  });

  const config = (flags: Partial<RolloutConfigInput>) =>
    resolveConfig(
      {},
      {
        promptData: fixture("data.jsonl"),
        metadataKey: "metadata",
        agentCommand: `${JSON.stringify(process.execPath)} ${fixture("echo-agent.mjs")}`,
        sglangUrl: [engine.url],
        agentWritesReward: true,
        progress: false,
        logLevel: "info",
        gatewayShards: 2,
        ...flags,
        agentEnv: [...(flags.agentEnv ?? []), AGENT_HOME_ENV],
      },
    );

  it("should place each Group on one shard, point its agents there, and write rows holding exactly the engine's ids", async () => {
    const { logger, lines } = captureLogger();
    const runtime = await createRolloutRuntime(
      config({ agentEnv: ["AGENT_TURNS=2"], nSamplesPerPrompt: 2, rolloutBatchSize: 6 }),
      { logger, standin: standinStarter },
    );
    try {
      const shards = runtime.shards!;
      expect(shards.size).toBe(2);
      const status = shards.status();
      expect(status.map((shard) => shard.state)).toEqual(["ready", "ready"]);
      expect(new Set(status.map((shard) => shard.pid)).size).toBe(2);
      expect(status.every((shard) => shard.url !== runtime.baseUrl)).toBe(true);
      const seen: Array<{ group: string; urls: string[] }> = [];
      const step = await runtime.runStep({
        rolloutId: 0,
        mode: "train",
        onGroup: (result) =>
          seen.push({ group: result.groupId, urls: result.sessions.map((s) => s.baseUrl!) }),
      });
      expect(
        step.groups.map((group) =>
          group.kind === "dropped" ? `${group.reason}: ${group.message}` : group.kind,
        ),
      ).toEqual(Array(6).fill("exported"));
      // Every session of a Group on the shard its id hashes to.
      for (const { group, urls } of seen) {
        expect(urls).toEqual([status[shards.shardOf(group)]!.url, status[shards.shardOf(group)]!.url]);
      }
      const bySession = callsBySession(engine.generates);
      expect(step.rows).toHaveLength(12);
      for (const row of step.rows) {
        const calls = bySession.get(row.session_id) ?? [];
        expect(calls).toHaveLength(2);
        expectRowMatchesEngine(expect, row, calls);
      }
      // The controller's port does not serve sessions: a credential there is unknown.
      const stray = await fetch(new URL("v1/chat/completions", runtime.baseUrl), {
        method: "POST",
        headers: {
          authorization: "Bearer 0123456789abcdef0123456789abcdef",
          "content-type": "application/json",
        },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(stray.status).toBe(404);
      expect(await stray.json()).toEqual({
        error: {
          message:
            "this is the controller's port of a sharded gateway (--gateway-shards): it serves no session; send model requests to your RELAX_BASE_URL (your gateway shard)",
          type: "not_found_error",
          param: null,
          code: "session_discarded",
        },
      });
      const health = (await (await fetch(new URL("health", runtime.baseUrl))).json()) as {
        shards: Array<{ state: string }>;
      };
      expect(health.shards.map((shard) => shard.state)).toEqual(["ready", "ready"]);
      expect(lines.filter((line) => String(line.msg).startsWith("gateway shard ")).length).toBe(2);
    } finally {
      await runtime.close();
    }
    expect(leftoverAgentProcesses("g0-")).toEqual([]);
  }, 120_000);

  it("should drop only the Groups of a shard that dies (shard_failed), restart it, and finish the step with exact rows", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-shards-"));
    chmodSync(dir, 0o777);
    const { logger, lines } = captureLogger();
    engine.generates.length = 0;
    const runtime = await createRolloutRuntime(
      config({
        agentEnv: ["AGENT_TURNS=6"],
        nSamplesPerPrompt: 2,
        rolloutBatchSize: 4,
        output: join(dir, "rows.jsonl"),
      }),
      { logger, standin: standinStarter },
    );
    try {
      const shards = runtime.shards!;
      const before = shards.status();
      const { step, results, hit } = await runStepSignallingAShard(runtime, "SIGKILL");
      const killed = hit.index;
      const dropped = expectOnlyItsGroupsDropped(
        runtime,
        results,
        killed,
        new RegExp(`gateway shard ${killed} \\(pid ${before[killed]!.pid}\\) exited \\(signal SIGKILL\\)`),
      );
      // The step still closes with its 4 Groups, replacements included; nothing of a dead shard is exported.
      expect(step.groups.filter((group) => group.kind === "exported")).toHaveLength(4);
      const bySession = callsBySession(engine.generates);
      for (const row of step.rows) expectRowMatchesEngine(expect, row, bySession.get(row.session_id) ?? []);
      expect(step.metrics["rollout/dropped_groups/shard_failed"]).toBe(dropped.length);
      // Restarted: a new process, ready (it loads its tokenizer again), one restart counted; the log says
      // what happened.
      await waitReady(runtime, killed);
      const after = shards.status()[killed]!;
      expect(after).toMatchObject({ state: "ready", restarts: 1 });
      expect(after.pid).not.toBe(before[killed]!.pid);
      const warn = lines.find((line) => String(line.msg).includes(`gateway shard ${killed} (pid`));
      expect(String(warn?.msg)).toMatch(/Group\(s\) are dropped \(shard_failed\); restarting it$/);

      // The restarted shard serves new Groups: run until one lands on it, with exact rows.
      let onRestarted = 0;
      for (let rolloutId = 1; rolloutId < 6 && onRestarted === 0; rolloutId++) {
        const next = await runtime.runStep({ rolloutId, mode: "train", groups: 2 });
        for (const group of next.groups) {
          expect(group.kind).toBe("exported");
          if (shards.shardOf(group.groupId) === killed) onRestarted++;
        }
        const calls = callsBySession(engine.generates);
        for (const row of next.rows) expectRowMatchesEngine(expect, row, calls.get(row.session_id) ?? []);
      }
      expect(onRestarted).toBeGreaterThan(0);
    } finally {
      await runtime.close();
    }
    expect(leftoverAgentProcesses("g")).toEqual([]);
  }, 240_000);

  it("should declare a shard that stops answering hung after --gateway-shard-timeout, drop its Groups and restart it", async () => {
    const { logger, lines } = captureLogger();
    engine.generates.length = 0;
    const runtime = await createRolloutRuntime(
      config({
        agentEnv: ["AGENT_TURNS=6"],
        nSamplesPerPrompt: 2,
        rolloutBatchSize: 3,
        gatewayShardTimeout: 2,
      }),
      { logger, standin: standinStarter },
    );
    try {
      const shards = runtime.shards!;
      // SIGSTOP: the shard neither dies nor answers.
      const { step, results, hit: stopped } = await runStepSignallingAShard(runtime, "SIGSTOP");
      expectOnlyItsGroupsDropped(
        runtime,
        results,
        stopped.index,
        new RegExp(
          `gateway shard ${stopped.index} \\(pid ${stopped.pid}\\) exited \\(hung: nothing received for [23] s, killed\\)`,
        ),
      );
      expect(step.groups.filter((group) => group.kind === "exported")).toHaveLength(3);
      const bySession = callsBySession(engine.generates);
      for (const row of step.rows) expectRowMatchesEngine(expect, row, bySession.get(row.session_id) ?? []);
      expect(
        lines.some((line) =>
          String(line.msg).startsWith(`AGENTIC gateway shard ${stopped.index} sent nothing for`),
        ),
      ).toBe(true);
      await waitReady(runtime, stopped.index);
      expect(shards.status()[stopped.index]).toMatchObject({ state: "ready", restarts: 1 });
    } finally {
      await runtime.close();
    }
    expect(leftoverAgentProcesses("g")).toEqual([]);
  }, 240_000);
  it("should send each shard's turns as engine-session deltas (--engine-sessions, streamed turns) and write the same rows as with full ids", async () => {
    // Steps of 2 Groups (3 streamed turns per session) until both shards served one (a Group's shard
    // hashes its random id); the full-ids run then runs as many steps.
    const run = async (engineSessions: boolean, steps?: number) => {
      engine.generates.length = 0;
      engine.engine.calls.length = 0;
      const runtime = await createRolloutRuntime(
        config({
          agentEnv: ["AGENT_TURNS=3", "AGENT_STREAM=1"],
          nSamplesPerPrompt: 2,
          rolloutBatchSize: 2,
          engineSessions,
        }),
        { logger: captureLogger().logger, standin: standinStarter },
      );
      const rows: TrainingRow[] = [];
      const shardsUsed = new Set<number>();
      try {
        expect(runtime.shards!.size).toBe(2);
        for (
          let rolloutId = 0;
          steps === undefined ? shardsUsed.size < 2 && rolloutId < 8 : rolloutId < steps;
          rolloutId++
        ) {
          const step = await runtime.runStep({ rolloutId, mode: "train" });
          expect(step.groups.map((group) => group.kind)).toEqual(["exported", "exported"]);
          for (const group of step.groups) shardsUsed.add(runtime.shards!.shardOf(group.groupId));
          rows.push(...step.rows);
        }
        return { rows, shardsUsed, bySession: callsBySession(engine.generates) };
      } finally {
        await runtime.close();
      }
    };
    const lean = await run(true);
    expect(lean.shardsUsed.size).toBe(2);
    const closes = engine.engine.calls.filter((call) => call.path === "/close_session");
    const opens = engine.engine.calls.filter((call) => call.path === "/open_session");
    const full = await run(false, lean.rows.length / 4);

    expect(full.rows).toHaveLength(lean.rows.length);
    const engineSessionIds = new Set<string>();
    for (const row of lean.rows) {
      const calls = lean.bySession.get(row.session_id) ?? [];
      expect(calls).toHaveLength(3);
      const params = calls.map((call) => (call.request as { session_params?: SessionParams }).session_params);
      expect(params.map((param) => typeof param?.id)).toEqual(["string", "string", "string"]);
      const id = params[0]!.id;
      engineSessionIds.add(id);
      const rebuilt = withFullIds(calls);
      // Turn 1 whole (replace: true), then only the ids after the engine's copy of the previous turn.
      expect(params[0]).toEqual({ id, replace: true });
      expect(calls[0]!.request.input_ids).toEqual(rebuilt[0]!.request.input_ids);
      for (const turn of [1, 2]) {
        const held =
          rebuilt[turn - 1]!.request.input_ids.length + calls[turn - 1]!.response.output_ids.length;
        expect(params[turn]).toEqual({ id, rid: calls[turn - 1]!.request.rid, offset: held });
        expect(calls[turn]!.request.input_ids).toEqual(rebuilt[turn]!.request.input_ids.slice(held));
      }
      expectRowMatchesEngine(expect, row, rebuilt);
    }
    // One engine session per agent session, each opened once and closed when the session was removed.
    expect(engineSessionIds.size).toBe(lean.rows.length);
    expect(opens).toHaveLength(lean.rows.length);
    expect(new Set(closes.map((call) => (call.body as { session_id: string }).session_id))).toEqual(
      engineSessionIds,
    );
    // Without engine sessions: full ids every turn, and the very same rows.
    for (const calls of full.bySession.values()) {
      for (const call of calls) expect("session_params" in call.request).toBe(false);
    }
    expect(lean.rows.map(rowContent).sort()).toEqual(full.rows.map(rowContent).sort());
    const sent = (bySession: Map<string, RecordedGenerate[]>) =>
      [...bySession.values()].flat().reduce((sum, call) => sum + call.request.input_ids.length, 0);
    expect(sent(lean.bySession)).toBeLessThan(sent(full.bySession));
  }, 180_000);
});
