import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PromptItem } from "../dataset/prompt-dataset";
import { RolloutStalledError } from "../errors/rollout-stalled-error";
import type { GroupResult } from "../group/run-group";
import { createLogger } from "../report/create-logger";
import { RunReporter } from "../report/run-reporter";
import {
  createFakeLauncher,
  type FakeAgentContext,
  type FakeAgentResult,
} from "../testing/create-fake-launcher";
import { createTestGroupGateway, type TestGroupGateway } from "../testing/create-test-group-gateway";
import { RolloutController } from "./rollout-controller";
import { stepMetrics } from "./step-metrics";

const prompts: PromptItem[] = ["a", "b", "c"].map((id, index) => ({
  index,
  messages: [{ role: "user", content: `Question ${id}?` }],
  metadata: { id },
}));

/** An agent that answers one turn; prompts whose metadata id is in `failing` exit with code 1 instead. */
const agent =
  (failing: ReadonlySet<string>) =>
  async (context: FakeAgentContext): Promise<FakeAgentResult> => {
    const id = (context.input.metadata as { id: string }).id;
    const response = await context.chat({ model: "m", messages: context.input.messages });
    await response.text();
    if (failing.has(id)) return { status: "failed", kind: "exit", message: `exited with code 1 on ${id}` };
    return {
      status: "succeeded",
      output: { kind: "implicit", reward: context.handle.sessionId.endsWith(".s0") ? 1 : 0 },
    };
  };

describe("RolloutController (in process, fake launcher)", () => {
  let gateway: TestGroupGateway;
  beforeAll(async () => {
    gateway = await createTestGroupGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  function controllerWith(failing: string[], options: { maxConsecutiveDrops?: number } = {}) {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write: (chunk, _encoding, callback) => {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        callback();
      },
    });
    const reporter = new RunReporter({ progress: false });
    const controller = new RolloutController({
      group: gateway.groupContext({
        launchAgent: createFakeLauncher({ fetch: gateway.fetch, agent: agent(new Set(failing)) }).launch,
      }),
      logger: createLogger({ level: "info", format: "json", destination }),
      reporter,
      decode: (ids) => gateway.tokenizer.decode(ids),
      logPassrate: false,
      ...options,
    });
    const accounting = () =>
      lines
        .filter((line) => String(line.msg).includes("event=accounting_end"))
        .map((line) => String(line.msg));
    return { controller, reporter, accounting };
  }

  it("should replace dropped Groups, count drops per reason with their sum, and keep debt and residents real", async () => {
    const { controller, reporter, accounting } = controllerWith(["b"]);
    const seen: Array<{ kind: string; prompt: number; debt: number; resident: number }> = [];
    const onGroup = (result: GroupResult) =>
      seen.push({
        kind: result.kind,
        prompt: result.prompt.index,
        debt: controller.debt,
        resident: controller.residentGroups,
      });
    const step = await controller.runStep({
      rolloutId: 0,
      prompts,
      groupsPerStep: 2,
      groupSize: 2,
      concurrency: 1,
      mode: "train",
      onGroup,
    });
    // a exports (debt 2 → 1), b drops and is replaced by c (the dataset continues), c exports (debt 0).
    // a's slot is freed when its agents exit, before its export: b is already resident when a reports.
    expect(seen).toEqual([
      { kind: "exported", prompt: 0, debt: 1, resident: 1 },
      { kind: "dropped", prompt: 1, debt: 1, resident: 0 },
      { kind: "exported", prompt: 2, debt: 0, resident: 0 },
    ]);
    expect(step.rows).toHaveLength(4);
    expect(step.metrics["rollout/dropped_groups"]).toBe(1);
    expect(step.metrics["rollout/dropped_groups/agent_exit"]).toBe(1);
    expect(step.metrics["rollout/exported_groups"]).toBe(2);
    expect(controller.debt).toBe(0);
    expect(controller.cursor).toBe(3);
    expect(accounting()).toEqual([
      expect.stringMatching(
        /event=accounting_end rollout=0 mode=train groups=2 rows=4 dropped_groups=1 debt=0 resident_groups=0 interrupted_groups=0 wall_s=/,
      ),
    ]);
    expect(reporter.counters).toMatchObject({ groupsExported: 2, groupsDropped: 1, evalGroupsExported: 0 });

    // The next step continues at the cursor (prompt 3 % 3 = a); a restart can set it.
    const next = await controller.runStep({
      rolloutId: 1,
      prompts,
      groupsPerStep: 1,
      groupSize: 2,
      concurrency: 2,
      mode: "train",
    });
    expect(next.groups.map((group) => group.prompt.index)).toEqual([0]);
    controller.cursor = 5;
    const resumed = await controller.runStep({
      rolloutId: 2,
      prompts,
      groupsPerStep: 1,
      groupSize: 2,
      concurrency: 2,
      mode: "train",
    });
    expect(resumed.groups.map((group) => group.prompt.index)).toEqual([2]);
    expect(controller.cursor).toBe(6);
    expect(() => {
      controller.cursor = -1;
    }).toThrow(RangeError);
  });

  it("should count residents while Groups run, and eval Groups apart from train in the reporter", async () => {
    const { controller, reporter } = controllerWith([]);
    const residents: number[] = [];
    const step = await controller.runStep({
      rolloutId: 0,
      prompts,
      groupsPerStep: 3,
      groupSize: 2,
      concurrency: 3,
      mode: "eval",
      onGroup: () => residents.push(controller.residentGroups),
    });
    expect(residents).toEqual([2, 1, 0]);
    expect(step.groups.map((group) => group.prompt.index).sort()).toEqual([0, 1, 2]);
    expect(step.metrics["eval/rollout/exported_groups"]).toBe(3);
    expect(step.metrics["eval/rollout/dropped_groups"]).toBe(0);
    expect(controller.cursor).toBe(0);
    expect(reporter.counters).toMatchObject({ groupsExported: 0, evalGroupsExported: 3 });
  });

  it("should stop a step whose Groups keep dropping and log its real debt", async () => {
    const { controller, accounting } = controllerWith(["a", "b", "c"], { maxConsecutiveDrops: 2 });
    await expect(
      controller.runStep({
        rolloutId: 4,
        prompts,
        groupsPerStep: 2,
        groupSize: 2,
        concurrency: 1,
        mode: "train",
      }),
    ).rejects.toThrow(RolloutStalledError);
    // A slot frees when a Group's agents exit, so the third Group was already running when the second drop
    // stalled the step; a stalled step lets it finish (its rows would be kept) and counts its drop too.
    expect(accounting()).toEqual([
      expect.stringMatching(
        /rollout=4 mode=train groups=0 rows=0 dropped_groups=3 debt=2 resident_groups=0 /,
      ),
    ]);
    expect(controller.debt).toBe(0);
  });
});

describe("stepMetrics", () => {
  it("should make rollout/dropped_groups the sum of the per-reason counts (agent and export drops)", () => {
    const prompt = prompts[0]!;
    const dropped = (reason: string, exported?: boolean): GroupResult => ({
      kind: "dropped",
      groupId: "g",
      prompt,
      reason,
      message: reason,
      sessions: [],
      outcomes: [],
      ...(exported
        ? { export: { kind: "dropped", reason, message: reason, groupIndex: 0, sessions: [] } as never }
        : {}),
    });
    const metrics = stepMetrics({
      results: [
        dropped("agent_timeout"),
        dropped("agent_timeout"),
        dropped("missing_reward", true),
        dropped("interrupted"),
      ],
      mode: "train",
      logPassrate: false,
    });
    expect(metrics["rollout/dropped_groups/agent_timeout"]).toBe(2);
    expect(metrics["rollout/dropped_groups/missing_reward"]).toBe(1);
    expect(metrics["rollout/dropped_groups/interrupted"]).toBeUndefined();
    expect(metrics["rollout/dropped_groups"]).toBe(3);
  });
});
