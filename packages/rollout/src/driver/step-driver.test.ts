import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StepOrderError } from "../errors/step-order-error";
import type { GroupResult } from "../group/run-group";
import { GROUP_JOURNAL_FILE } from "../journal/group-journal";
import { readRunState } from "../journal/run-dir";
import { createLogger } from "../report/create-logger";
import type { StepResult } from "../step/controller-options";
import type { RuntimeStepOptions, StepRunner } from "../step/step-runner";
import { StepDriver } from "./step-driver";

const logger = createLogger({ level: "silent" });

/** A dropped Group of prompt `index` (the journal and rows file need no rows for it). */
const dropped = (index: number): GroupResult => ({
  kind: "dropped",
  groupId: `g-${index}`,
  prompt: { index, messages: [], metadata: {} } as unknown as GroupResult["prompt"],
  reason: "agent_failed",
  message: "exit 1",
  sessions: [],
  outcomes: [],
});

/**
 * The part of a runtime the driver uses: a 2-Group batch over 3 prompts whose Groups all drop; `fail`
 * makes the next step throw after its first Group.
 */
function fakeRuntime(dir: string) {
  const calls: RuntimeStepOptions[] = [];
  let weightVersion: string | undefined;
  const runtime = {
    cursor: 0,
    prompts: [{}, {}, {}],
    output: join(dir, "rows-{rollout_id}.jsonl"),
    steps: { train: { groupsPerStep: 2 } },
    gate: {
      get weightVersion() {
        return weightVersion;
      },
      setWeightVersion(version: string) {
        weightVersion = version;
      },
    },
    fail: false,
    async runStep(options: RuntimeStepOptions): Promise<StepResult> {
      calls.push(options);
      const cursors = [...(options.resumeCursors ?? [])];
      const groups: GroupResult[] = [];
      for (let i = 0; i < (options.groups ?? 2); i++) {
        const cursor = cursors.shift() ?? runtime.cursor++;
        const group = dropped(cursor % 3);
        groups.push(group);
        options.onGroup?.(group, { cursor, groupIndex: (options.firstGroupIndex ?? 0) + i });
        if (runtime.fail) throw new Error("stalled after one Group");
      }
      return {
        rolloutId: options.rolloutId,
        mode: "train",
        rows: [],
        groups,
        metrics: { m: 1 },
        wallSeconds: 0,
      };
    },
  };
  return { runtime, calls, asRuntime: runtime as unknown as StepRunner };
}

describe("StepDriver", () => {
  it("should run steps in order, write state.json with the gate's weight version and reset the journal", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-driver-"));
    const runDir = join(dir, "run");
    const { runtime, asRuntime } = fakeRuntime(dir);
    const driver = new StepDriver({ runtime: asRuntime, configHash: "sha256:c", runDir, logger });
    await expect(driver.runStep({ rolloutId: 1 })).rejects.toThrow(StepOrderError);
    runtime.gate.setWeightVersion("v4");
    const seen: number[] = [];
    const { step, file } = await driver.runStep({
      rolloutId: 0,
      onGroup: (group) => seen.push(group.prompt.index),
    });
    expect(seen).toEqual([0, 1]);
    expect(step.metrics).toEqual({ m: 1 });
    expect(file).toBe(join(dir, "rows-0.jsonl"));
    expect(await readRunState(runDir)).toEqual({
      config_hash: "sha256:c",
      next_rollout_id: 1,
      dataset_cursor: 2,
      weight_version: "v4",
      eval: { last_rollout_id: null },
    });
    expect(readFileSync(join(runDir, GROUP_JOURNAL_FILE), "utf8")).toBe("");
    expect(driver.nextRolloutId).toBe(1);
  });

  it("should save a weight version loaded mid-run without touching the step fields, and restore it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-driver-"));
    const runDir = join(dir, "run");
    const first = fakeRuntime(dir);
    const driver = new StepDriver({ runtime: first.asRuntime, configHash: "sha256:c", runDir, logger });
    await driver.runStep({ rolloutId: 0 });
    await driver.saveWeightVersion("v2");
    expect(await readRunState(runDir)).toMatchObject({
      next_rollout_id: 1,
      dataset_cursor: 2,
      weight_version: "v2",
    });
    const saved = await readRunState(runDir);
    const second = fakeRuntime(dir);
    const restarted = new StepDriver({
      runtime: second.asRuntime,
      configHash: "sha256:c",
      runDir,
      saved,
      logger,
    });
    expect([restarted.nextRolloutId, second.runtime.cursor, second.runtime.gate.weightVersion]).toEqual([
      1,
      2,
      "v2",
    ]);
  });

  it("should keep the rollout id of a step that fails and the prompts it took, then replay its journal on restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-driver-"));
    const runDir = join(dir, "run");
    const first = fakeRuntime(dir);
    first.runtime.fail = true;
    const driver = new StepDriver({ runtime: first.asRuntime, configHash: "sha256:c", runDir, logger });
    await expect(driver.runStep({ rolloutId: 0 })).rejects.toThrow("stalled after one Group");
    expect(await readRunState(runDir)).toMatchObject({ next_rollout_id: 0, dataset_cursor: 1 });
    const journal = readFileSync(join(runDir, GROUP_JOURNAL_FILE), "utf8").trimEnd().split("\n");
    expect(journal.map((line) => JSON.parse(line).type)).toEqual(["step", "group"]);

    const saved = await readRunState(runDir);
    const second = fakeRuntime(dir);
    const restarted = new StepDriver({
      runtime: second.asRuntime,
      configHash: "sha256:c",
      runDir,
      saved,
      logger,
    });
    const resume = await restarted.planResume();
    expect(resume).toMatchObject({ rolloutId: 0, groups: 1, exported: 0, nextCursor: 1 });
    let replayed: number | undefined;
    await restarted.runStep({
      rolloutId: 0,
      onResumedRows: (rows, plan) => (replayed = rows.length + plan.groups),
    });
    expect(replayed).toBe(1);
    // A dropped Group is not owed again by the journal: the whole batch (2) still runs, from cursor 1.
    expect(second.calls.map((call) => [call.groups, call.firstGroupIndex])).toEqual([
      [2, resume!.firstGroupIndex],
    ]);
    expect(await readRunState(runDir)).toMatchObject({ next_rollout_id: 1, dataset_cursor: 3 });
  });
});
