import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { readTrainingRowsFile, type TrainingRow, trainingRowSchema } from "@relax/export";
import { createLogger } from "@relax/rollout";
import type { RolloutConfigInput } from "@relax/runtime";
import { resolveConfig } from "@relax/runtime";
import { longTailPolicy } from "@relax-examples/long-tail-agent";
import { describe, expect, it } from "vitest";
import { runRollout } from "../src/run-rollout";
import {
  AGENT_HOME_ENV,
  expectRowMatchesEngine,
  longTailLauncher,
  startRecordingEngine,
  writePromptDataset,
} from "./helpers";

const MAX_ABORTED = 1;

/**
 * `relax rollout` end to end with the cross-step flags: the long-tail agent (run in process by the fake
 * launcher, so 48 sessions start fast) against the recording stand-in engine (not a model) with a
 * latency per token, so step closes find generations in flight.
 */
async function runLongTail(flags: Partial<RolloutConfigInput>, options: { processes?: boolean } = {}) {
  const engine = await startRecordingEngine(longTailPolicy as never, { tokenLatencyMs: 4 });
  const dir = mkdtempSync(join(tmpdir(), "relax-cross-step-"));
  const data = join(dir, "prompts.jsonl");
  writePromptDataset(data, 12);
  // Eval prompts differ from the train ones, so no eval call matches a train row's lineage.
  const evalData = join(dir, "holdout.jsonl");
  writePromptDataset(evalData, 12, "Holdout", "h");
  const lines: string[] = [];
  const logger = createLogger({
    level: "info",
    format: "json",
    destination: new Writable({
      write: (chunk, _encoding, callback) => {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line).msg);
        callback();
      },
    }),
  });
  const launcher = longTailLauncher();
  try {
    const config = resolveConfig(
      {},
      {
        promptData: data,
        ...(flags.evalPromptData !== undefined ? { evalPromptData: { holdout: evalData } } : {}),
        agentCommand: options.processes
          ? `node ${fileURLToPath(new URL("../../../examples/long-tail-agent/dist/agent.js", import.meta.url))}`
          : "in-process long-tail agent",
        agentEnv: [AGENT_HOME_ENV, "LONG_TAIL_TOOL_MEDIAN_MS=5", "LONG_TAIL_MAX_TURNS=6"],
        sglangUrl: [engine.url],
        agentWritesReward: true,
        numRollout: 3,
        rolloutBatchSize: 2,
        nSamplesPerPrompt: 2,
        rolloutMaxResponseLen: 256,
        output: join(dir, "rows-{rollout_id}.jsonl"),
        progress: false,
        ...Object.fromEntries(Object.entries(flags).filter(([key]) => key !== "evalPromptData")),
      },
    );
    const run = await runRollout(config, {
      logger,
      ...(options.processes ? {} : { launchAgent: launcher.launch }),
      stdout: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
    });
    const files: TrainingRow[][] = [];
    for (const step of run.steps) {
      const rows: TrainingRow[] = [];
      for await (const row of readTrainingRowsFile(join(dir, `rows-${step.rolloutId}.jsonl`))) rows.push(row);
      files.push(rows);
    }
    return { run, files, generates: [...engine.generates], lines, dir };
  } finally {
    await engine.close();
  }
}

/** Every row: schema, tokens = prompt + generated, mask and logprobs exactly the engine's, nothing lost or twice. */
function expectRowsExact(
  rows: readonly TrainingRow[],
  generates: Parameters<typeof expectRowMatchesEngine>[2],
) {
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    expect(trainingRowSchema.safeParse(row).success).toBe(true);
    expectRowMatchesEngine(expect, row, generates);
    expect(row.request_kinds).toHaveLength(row.num_turns);
  }
}

describe("cross-step scheduling under relax rollout (long-tail agent, stand-in engine — not a model)", () => {
  it("partial rollout + prelaunch + over-sampling: aborted turns continue exactly, protected sessions are never aborted again", async () => {
    const { run, files, generates, lines } = await runLongTail({
      partialRollout: true,
      partialRolloutMaxAbortedCount: MAX_ABORTED,
      agenticPrelaunch: true,
      overSamplingBatchSize: 4,
      // The eval after the last step runs while the train Groups' generation is paused: not held by it.
      evalPromptData: { holdout: "" },
      agenticEvalConcurrency: 4,
    });
    expect(run.evals.map((item) => [item.dataset, item.step.rows.length])).toEqual([["holdout", 12]]);
    // T = 4 Groups × 2 and E_peak = 4 × 1 coexist (train sessions stay resident during eval).
    expect(lines).toContain(
      "agent slots: 12 = 8 train (4 Groups × 2 samples) + 4 eval (4 Groups × 1 sample), train sessions stay during eval (docs/contract.md#external-capacity)",
    );
    expect(run.steps.map((step) => [step.rolloutId, step.rows.length])).toEqual([
      [0, 4],
      [1, 4],
      [2, 4],
    ]);
    const rows = files.flat();
    expectRowsExact(rows, generates);
    // Partial rollout happened: some rows continued turns from a pause, and lived through several steps.
    // With a threshold of 1, the continuation of an aborted turn is already protected.
    expect(rows.some((row) => row.abort_count > 0 && row.request_kinds!.includes("protected"))).toBe(true);
    expect(rows.some((row) => row.steps_lived!.length > 1)).toBe(true);
    for (const row of rows) {
      expect(row.abort_count).toBeLessThanOrEqual(MAX_ABORTED);
      // Off-policy distance: 0 for a sample that lived in one step, at most the steps it lived through.
      const lived = row.steps_lived!;
      if (lived.length === 1) expect(row.weight_version_lag).toBe(0);
      expect(row.weight_version_lag).toBeLessThanOrEqual(lived.at(-1)! - lived[0]!);
      const firstProtected = row.request_kinds!.indexOf("protected");
      if (firstProtected >= 0) {
        // Protected at the threshold, and every later turn of the session protected too (never aborted).
        expect(row.abort_count).toBe(MAX_ABORTED);
        expect(row.request_kinds!.slice(firstProtected).every((kind) => kind === "protected")).toBe(true);
      }
    }
    expect(lines.some((line) => /event=accounting_start rollout=1 .* resident_groups=[1-9]/.test(line))).toBe(
      true,
    );
  });

  it("fully async + partial rollout + prelaunch, n=4, B=4 (issue #24): exactly 4 Groups (16 rows) in each of 3 rows files, no fourth", async () => {
    // The long-tail agent draws its turn count and tool latency from a heavy-tailed distribution seeded by
    // the prompt and sample (so the same Groups are slow in every run).
    const { run, files, generates, lines, dir } = await runLongTail({
      nSamplesPerPrompt: 4,
      rolloutBatchSize: 4,
      numRollout: 3,
      fullyAsync: true,
      partialRollout: true,
      agenticPrelaunch: true,
    });
    expect(run.steps.map((step) => step.rolloutId)).toEqual([0, 1, 2]);
    expect(
      readdirSync(dir)
        .filter((name) => name.startsWith("rows-"))
        .sort(),
    ).toEqual(["rows-0.jsonl", "rows-1.jsonl", "rows-2.jsonl"]);
    expect(files.map((rows) => rows.length)).toEqual([16, 16, 16]);
    files.forEach((rows, rolloutId) => {
      // 4 Groups of 4 samples, contiguous per Group, every row saying which step's batch it fills.
      const groups = [...new Set(rows.map((row) => row.group_index))];
      expect(groups).toHaveLength(4);
      for (const group of groups) expect(rows.filter((row) => row.group_index === group)).toHaveLength(4);
      for (const row of rows) {
        expect(row.partition).toBe(rolloutId);
        expect(row.steps_lived!.at(-1)).toBe(rolloutId);
        expect(row.weight_version_lag).toBeLessThanOrEqual(rolloutId);
      }
    });
    expectRowsExact(files.flat(), generates);
    // No Group trained twice; every step ended on its batch with no debt.
    const ids = files.flat().map((row) => `${row.group_index}/${row.sample_index}`);
    expect(new Set(ids).size).toBe(48);
    const ends = lines.filter((line) => /event=accounting_end rollout=\d+ mode=train /.test(line));
    expect(
      ends.map((line) => /groups=(\d+) rows=(\d+) dropped_groups=\d+ debt=(\d+)/.exec(line)!.slice(1)),
    ).toEqual([
      ["4", "16", "0"],
      ["4", "16", "0"],
      ["4", "16", "0"],
    ]);
    // Something did cross a step: a Group prelaunched or carried into a later step's batch.
    expect(files.flat().some((row) => row.steps_lived!.length > 1)).toBe(true);
  });

  it("fully async + prelaunch (n=2, B=2): every step exactly its batch, no back-fill step", async () => {
    const { run, files, generates } = await runLongTail({ fullyAsync: true, agenticPrelaunch: true });
    expect(run.steps.map((step) => [step.rolloutId, step.rows.length, step.debt])).toEqual([
      [0, 4, 0],
      [1, 4, 0],
      [2, 4, 0],
    ]);
    expect(files.map((rows) => rows.length)).toEqual([4, 4, 4]);
    expectRowsExact(files.flat(), generates);
    for (const row of files.flat()) expect(row.weight_version_lag).toBeGreaterThanOrEqual(0);
  });

  it("real agent processes (examples/long-tail-agent/dist/agent.js): prelaunch + partial rollout + fully async", async () => {
    const { run, files, generates } = await runLongTail(
      { numRollout: 2, fullyAsync: true, partialRollout: true, agenticPrelaunch: true },
      { processes: true },
    );
    const rows = files.flat();
    expectRowsExact(rows, generates);
    // Each step is its full batch (2 Groups × 2 samples); no back-fill step.
    expect(files.map((stepRows) => stepRows.length)).toEqual([4, 4]);
    expect(run.steps.map((step) => step.rolloutId)).toEqual([0, 1]);
    for (const row of rows) expect(row.metadata).toMatchObject({ turns: expect.any(Number) });
  });
});
