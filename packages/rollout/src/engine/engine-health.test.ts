import { Writable } from "node:stream";
import { isEngineOutageError } from "@relax/agent-api";
import { type ServerHealth, SglangConnectionError, SglangServerError } from "@relax/sglang";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PromptItem } from "../dataset/prompt-dataset";
import { RolloutStalledError } from "../errors/rollout-stalled-error";
import type { GroupResult } from "../group/run-group";
import { createLogger } from "../report/create-logger";
import { RunReporter } from "../report/run-reporter";
import type { GroupLaunchInfo } from "../step/controller-options";
import { RolloutController } from "../step/rollout-controller";
import {
  createFakeLauncher,
  type FakeAgentContext,
  type FakeAgentResult,
} from "../testing/create-fake-launcher";
import { createTestGroupGateway, type TestGroupGateway } from "../testing/create-test-group-gateway";
import { EngineHealth } from "./engine-health";

const prompts: PromptItem[] = ["a", "b", "c", "d"].map((id, index) => ({
  index,
  messages: [{ role: "user", content: `Question ${id}?` }],
  metadata: { id },
}));

const url = "http://127.0.0.1:1";
const healthy: ServerHealth[] = [{ url, role: "worker", ok: true, status: 200 }];
const down: ServerHealth[] = [{ url, role: "worker", ok: false, status: 0, error: "ECONNREFUSED" }];

/** Log lines as JSON objects. */
function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write: (chunk, _encoding, callback) => {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { lines, logger: createLogger({ level: "info", format: "json", destination }) };
}

/**
 * An EngineHealth over a scripted probe (`answers` in order, the last one repeated) and a fake clock that
 * a wait advances; `events` records probes and waits in order.
 */
function scriptedHealth(
  answers: ServerHealth[][],
  backoff = { initialMs: 100, maxMs: 400, maxOutageMs: 60_000 },
) {
  const events: string[] = [];
  let clock = 0;
  let probes = 0;
  const { lines, logger } = captureLogger();
  const health = new EngineHealth({
    probe: async () => {
      events.push("probe");
      return answers[Math.min(probes++, answers.length - 1)]!;
    },
    logger,
    backoff,
    sleep: async (ms) => {
      events.push(`wait ${ms}`);
      clock += ms;
    },
    now: () => clock,
  });
  return { health, events, lines };
}

describe("isEngineOutageError", () => {
  it("should count no connection, 5xx and 429 as outages, and nothing a request caused", () => {
    expect(isEngineOutageError(new SglangConnectionError({ url }))).toBe(true);
    expect(isEngineOutageError(new SglangServerError({ status: 503, body: "", url }))).toBe(true);
    const tooMany = Object.assign(new Error("429"), { status: 429 });
    Object.defineProperty(tooMany, Symbol.for("relax.error.SglangApiError"), { value: true });
    expect(isEngineOutageError(tooMany)).toBe(true);
    const badRequest = Object.assign(new Error("400"), { status: 400 });
    Object.defineProperty(badRequest, Symbol.for("relax.error.SglangApiError"), { value: true });
    expect(isEngineOutageError(badRequest)).toBe(false);
    expect(isEngineOutageError(new Error("boom"))).toBe(false);
  });
});

describe("EngineHealth", () => {
  it("should not probe while the engine is believed up, then wait with doubling, capped, logged backoff", async () => {
    const { health, events, lines } = scriptedHealth([down, down, down, down, healthy]);
    let ran = 0;
    const run = async () => {
      ran++;
      return {} as GroupResult;
    };
    const group = { prompt: prompts[0]!, slot: 0, rolloutId: 0 };
    await health.runWhenHealthy(run, group);
    expect(events).toEqual([]);
    health.noteTurnError("s1", new SglangConnectionError({ url }));
    expect(health.down).toBe(true);
    // Two Groups wait on the same check loop: one probe per attempt, one log line per wait.
    await Promise.all([health.runWhenHealthy(run, group), health.runWhenHealthy(run, { ...group, slot: 1 })]);
    expect(events).toEqual([
      "probe",
      "wait 100",
      "probe",
      "wait 200",
      "probe",
      "wait 400",
      "probe",
      "wait 400",
      "probe",
    ]);
    expect(ran).toBe(3);
    expect(health.down).toBe(false);
    expect(health.waits).toBe(4);
    const waits = lines.filter((line) => String(line.msg).startsWith("AGENTIC engine not healthy"));
    expect(waits.map((line) => [line.attempt, line.wait_ms])).toEqual([
      [1, 100],
      [2, 200],
      [3, 400],
      [4, 400],
    ]);
    expect(
      lines.some((line) => line.msg === "AGENTIC engine healthy again: launching Groups" && line.waits === 4),
    ).toBe(true);
  });

  it("should give up after maxOutageMs with a backend_unavailable drop and a failure", async () => {
    const { health, events } = scriptedHealth([down], { initialMs: 100, maxMs: 400, maxOutageMs: 1000 });
    health.markDown();
    const result = await health.runWhenHealthy(async () => ({}) as GroupResult, {
      prompt: prompts[2]!,
      slot: 3,
      rolloutId: 7,
    });
    expect(events.filter((event) => event.startsWith("wait"))).toEqual([
      "wait 100",
      "wait 200",
      "wait 400",
      "wait 300",
    ]);
    expect(result).toMatchObject({ kind: "dropped", reason: "backend_unavailable", groupId: "g7-3" });
    expect(health.failure?.message).toBe(
      `the inference engine stayed unhealthy for 1 s (${url} (ECONNREFUSED)); giving up`,
    );
  });

  it("should answer an interrupted drop when the signal aborts during the wait", async () => {
    const { logger } = captureLogger();
    const health = new EngineHealth({ probe: async () => down, logger, sleep: () => new Promise(() => {}) });
    health.markDown();
    const abort = new AbortController();
    const pending = health.runWhenHealthy(async () => ({}) as GroupResult, {
      signal: abort.signal,
      prompt: prompts[0]!,
      slot: 0,
      rolloutId: 0,
    });
    abort.abort();
    expect(await pending).toMatchObject({ kind: "dropped", reason: "interrupted" });
    health.close();
  });
});

describe("RolloutController with EngineHealth (in process, fake launcher)", () => {
  let gateway: TestGroupGateway;
  beforeAll(async () => {
    gateway = await createTestGroupGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  /**
   * An agent that answers one turn; on prompts in `outage` it reports an engine connection failure for its
   * session (as the turn runner does) and exits 1, as an agent whose requests failed would.
   */
  const agent =
    (health: EngineHealth, outage: ReadonlySet<string>, started: string[]) =>
    async (context: FakeAgentContext): Promise<FakeAgentResult> => {
      const id = (context.input.metadata as { id: string }).id;
      started.push(id);
      if (outage.has(id)) {
        health.noteTurnError(context.sessionLabel, new SglangConnectionError({ url }));
        return { status: "failed", kind: "exit", message: "exited with code 1: 503 from the gateway" };
      }
      const response = await context.chat({ model: "m", messages: context.input.messages });
      await response.text();
      return {
        status: "succeeded",
        output: { kind: "implicit", reward: context.sessionLabel.endsWith(".s0") ? 1 : 0 },
      };
    };

  function controllerWith(health: EngineHealth, outage: string[], started: string[]) {
    const { logger } = captureLogger();
    return new RolloutController({
      group: gateway.groupContext({
        launchAgent: createFakeLauncher({
          fetch: gateway.fetch,
          agent: agent(health, new Set(outage), started),
        }).launch,
      }),
      logger,
      reporter: new RunReporter({ progress: false }),
      decode: (ids) => gateway.tokenizer.decode(ids),
      logPassrate: false,
      maxConsecutiveDrops: 1,
      engineHealth: health,
    });
  }

  it("should count backend drops apart, outside the drop budget, and launch nothing until the engine is healthy", async () => {
    const { health, events } = scriptedHealth([down, down, healthy]);
    const started: string[] = [];
    const controller = controllerWith(health, ["a", "b"], started);
    const seen: Array<{ kind: string; reason?: string; info: GroupLaunchInfo }> = [];
    const step = await controller.runStep({
      rolloutId: 0,
      prompts,
      groupsPerStep: 2,
      groupSize: 2,
      concurrency: 1,
      mode: "train",
      onGroup: (result, info) =>
        seen.push({
          kind: result.kind,
          ...(result.kind === "dropped" ? { reason: result.reason } : {}),
          info,
        }),
    });
    // maxConsecutiveDrops is 1: two agent drops in a row would have stalled the step.
    expect(seen).toEqual([
      {
        kind: "dropped",
        reason: "backend_agent_exited_before_first_request",
        info: { cursor: 0, groupIndex: 0 },
      },
      {
        kind: "dropped",
        reason: "backend_agent_exited_before_first_request",
        info: { cursor: 1, groupIndex: 1 },
      },
      { kind: "exported", info: { cursor: 2, groupIndex: 2 } },
      { kind: "exported", info: { cursor: 3, groupIndex: 3 } },
    ]);
    expect(step.metrics["rollout/dropped_groups/backend_agent_exited_before_first_request"]).toBe(2);
    expect(step.metrics["rollout/dropped_groups"]).toBe(2);
    expect(step.metrics["rollout/exported_groups"]).toBe(2);
    // a's failure marked the engine down: b started only after two waits and a healthy check; b's failure
    // marked it down again, so c started after one more (healthy) check.
    expect(events).toEqual(["probe", "wait 100", "probe", "wait 200", "probe", "probe"]);
    expect(started).toEqual(["a", "a", "b", "b", "c", "c", "d", "d"]);
  });

  it("should still stall on agent drops, and fail the step on an outage past maxOutageMs", async () => {
    const { health } = scriptedHealth([down], { initialMs: 100, maxMs: 100, maxOutageMs: 300 });
    const started: string[] = [];
    const controller = controllerWith(health, ["a"], started);
    const error = await controller
      .runStep({ rolloutId: 2, prompts, groupsPerStep: 2, groupSize: 2, concurrency: 1, mode: "train" })
      .catch((caught: unknown) => caught);
    expect(RolloutStalledError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `rollout 2: the inference engine stayed unhealthy for 0 s (${url} (ECONNREFUSED)); giving up`,
    );
    expect(started).toEqual(["a", "a"]);
  });

  it("should run resumed prompt positions first and continue the Group indexes", async () => {
    const { health } = scriptedHealth([healthy]);
    const controller = controllerWith(health, [], []);
    controller.cursor = 6;
    const seen: GroupLaunchInfo[] = [];
    const step = await controller.runStep({
      rolloutId: 3,
      prompts,
      groupsPerStep: 3,
      groupSize: 2,
      concurrency: 1,
      mode: "train",
      resumeCursors: [4],
      firstGroupIndex: 5,
      onGroup: (_result, info) => seen.push(info),
    });
    expect(seen).toEqual([
      { cursor: 4, groupIndex: 5 },
      { cursor: 6, groupIndex: 6 },
      { cursor: 7, groupIndex: 7 },
    ]);
    expect(step.rows.map((row) => [row.group_index, row.prompt_index])).toEqual([
      [5, 0],
      [5, 0],
      [6, 2],
      [6, 2],
      [7, 3],
      [7, 3],
    ]);
    expect(controller.cursor).toBe(8);
  });
});
