import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { readTrainingRowsFile } from "@relax/export";
import { createLogger } from "@relax/rollout";
import { createFakeLauncher, type FakeAgentContext, type FakeAgentResult } from "@relax/rollout/testing";
import { resolveConfig } from "@relax/runtime";
import { describe, expect, it } from "vitest";
import { runRollout } from "./run-rollout";

const collect = () => {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString("utf8"));
      callback();
    },
  });
  return { stream, text: () => chunks.join("") };
};

// Reward 0 for the drift dataset's prompt (metadata id d1), 1 for every other.
const agent = async (context: FakeAgentContext): Promise<FakeAgentResult> => {
  const response = await context.chat({ model: "m", messages: context.input.messages });
  await response.json();
  const reward = context.input.metadata?.id === "d1" ? 0 : 1;
  return { status: "succeeded", output: { kind: "implicit", reward } };
};

const run = async (overrides: Record<string, unknown>) => {
  const dir = mkdtempSync(join(tmpdir(), "relax-run-evals-"));
  const config = resolveConfig(
    {},
    {
      promptData: "test/fixtures/data.jsonl",
      evalPromptData: ["math", "test/fixtures/data.jsonl", "drift", "test/fixtures/drift.jsonl"],
      agentCommand: "in-process fake agent",
      enginePolicy: "test/fixtures/fixed-policy.mjs",
      nSamplesPerPrompt: 2,
      rolloutBatchSize: 1,
      numRollout: 4,
      agentWritesReward: true,
      output: join(dir, "rows.jsonl"),
      progress: false,
      logLevel: "info",
      ...overrides,
    },
  );
  const log = collect();
  const stdout = collect();
  const launcher = createFakeLauncher({ agent });
  const result = await runRollout(config, {
    stdout: stdout.stream,
    logger: createLogger({ level: "info", format: "json", destination: log.stream }),
    launchAgent: launcher.launch,
  });
  const rows = [];
  for await (const row of readTrainingRowsFile(join(dir, "rows.jsonl"))) rows.push(row);
  const records = log
    .text()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown> & { msg: string });
  return { result, rows, records, stdout: stdout.text(), launcher };
};

describe("runRollout eval schedule", () => {
  it("should run both eval datasets, in order, before training, every 2nd step and at the end", async () => {
    const { result, rows, records, stdout, launcher } = await run({ evalInterval: 2 });
    expect(result.evals.map((item) => [item.step.rolloutId, item.dataset])).toEqual([
      [0, "math"],
      [0, "drift"],
      [2, "math"],
      [2, "drift"],
      [4, "math"],
      [4, "drift"],
    ]);
    expect(result.evalSteps).toEqual(result.evals.map((item) => item.step));
    // The order sessions ran in: eval 0, train 0, train 1, eval 2, train 2, train 3, eval 4.
    const modes = launcher.launched.map((launch) => launch.rolloutMode);
    const evalSessions = 3 + 1; // one session per prompt: 3 math prompts, 1 drift prompt
    expect(modes).toEqual([
      ...Array(evalSessions).fill("eval"),
      ...Array(4).fill("train"),
      ...Array(evalSessions).fill("eval"),
      ...Array(4).fill("train"),
      ...Array(evalSessions).fill("eval"),
    ]);
    // Eval rows never reach the training rows file: 4 steps × 1 Group × 2 sessions.
    expect(rows).toHaveLength(8);
    expect(rows.map((row) => row.session_id)).toEqual(
      result.steps.flatMap((step) => step.rows.map((row) => row.session_id)),
    );
    expect(rows.map((row) => row.session_id.split("-")[0])).toEqual([
      "g0",
      "g0",
      "g1",
      "g1",
      "g2",
      "g2",
      "g3",
      "g3",
    ]);
    expect(result.evals[0]!.step.rows[0]!.session_id).toMatch(/^eval-g0-/);

    const accounting = records
      .map((record) => record.msg)
      .filter((msg) => msg.startsWith("AGENTIC ROLLOUT event=accounting_start"));
    expect(accounting.slice(0, 3)).toEqual([
      "AGENTIC ROLLOUT event=accounting_start rollout=0 mode=eval dataset=math sessions=3 groups=3",
      "AGENTIC ROLLOUT event=accounting_start rollout=0 mode=eval dataset=drift sessions=1 groups=1",
      "AGENTIC ROLLOUT event=accounting_start rollout=0 mode=train sessions=2 groups=1",
    ]);
    const evalLogs = records.filter((record) => record.msg.startsWith("AGENTIC ROLLOUT event=eval_metrics"));
    expect(evalLogs.map((record) => record.msg)).toEqual([
      "AGENTIC ROLLOUT event=eval_metrics rollout=0 dataset=math",
      "AGENTIC ROLLOUT event=eval_metrics rollout=0 dataset=drift",
      "AGENTIC ROLLOUT event=eval_metrics rollout=2 dataset=math",
      "AGENTIC ROLLOUT event=eval_metrics rollout=2 dataset=drift",
      "AGENTIC ROLLOUT event=eval_metrics rollout=4 dataset=math",
      "AGENTIC ROLLOUT event=eval_metrics rollout=4 dataset=drift",
    ]);
    expect(evalLogs[0]).toMatchObject({ "eval/math/rollout/raw_reward": 1, "eval/math/rollout/rows": 3 });
    expect(evalLogs[1]).toMatchObject({ "eval/drift/rollout/raw_reward": 0 });
    expect(Object.keys(evalLogs[1]!).some((key) => key.startsWith("eval/math/"))).toBe(false);

    expect(result.summary.eval).toMatchObject({
      groupsExported: 3 * evalSessions,
      rewardMean: 0.75,
      datasets: [
        { name: "math", runs: 3, rolloutId: 4, rows: 3, rewardMean: 1 },
        { name: "drift", runs: 3, rolloutId: 4, rows: 1, rewardMean: 0 },
      ],
    });
    // T = 1 Group × 2 sessions, G_d = 1: 2 eval Groups at once.
    expect(stdout).toContain(
      "  eval      math (3 prompts), drift (1 prompts) × 1 sample(s), 2 groups at once; before training, every 2 step(s) and after the last\n",
    );
    const table = stdout.split("\n");
    expect(table.find((line) => line.startsWith("| eval math reward mean "))).toMatch(
      /\| 1\.000 \(rollout 4, 3 rows, latest of 3 runs\) +\|$/,
    );
    expect(table.find((line) => line.startsWith("| eval drift reward mean "))).toMatch(
      /\| 0\.000 \(rollout 4, /,
    );
  });

  it("should evaluate once after the last step without --eval-interval, and skip the eval before training on request", async () => {
    const debug = mkdtempSync(join(tmpdir(), "relax-run-evals-debug-"));
    const once = await run({ numRollout: 2, saveDebugRolloutData: join(debug, "dump-{rollout_id}.json") });
    expect(once.result.evals.map((item) => [item.step.rolloutId, item.dataset])).toEqual([
      [2, "math"],
      [2, "drift"],
    ]);
    // Each eval dataset's debug dump has a path of its own.
    expect(readdirSync(debug).sort()).toEqual([
      "dump-0.json",
      "dump-1.json",
      "dump-eval_2_drift.json",
      "dump-eval_2_math.json",
    ]);
    const skipped = await run({ numRollout: 3, evalInterval: 2, skipEvalBeforeTrain: true });
    expect(skipped.result.evals.map((item) => [item.step.rolloutId, item.dataset])).toEqual([
      [2, "math"],
      [2, "drift"],
      [3, "math"],
      [3, "drift"],
    ]);
  });
});
