import { FunctionLoadError } from "@relax/export";
import { describe, expect, it } from "vitest";
import type { PromptItem } from "../dataset/prompt-dataset";
import { EvalFunctionError } from "../errors/eval-function-error";
import type { StepResult } from "../step/controller-options";
import { createEvalRunner, createStepRunner } from "../step/create-step-runner";
import { applyEvalFunction, type EvalFunctionInput, loadEvalFunction } from "./eval-function";

const FIXTURE = "./test/fixtures/eval-function.mjs";
const cwd = process.cwd();
const row = (reward: number, status: string) =>
  ({ reward, status }) as unknown as EvalFunctionInput["rows"][number];
const input: EvalFunctionInput = {
  rolloutId: 3,
  dataset: "gsm8k",
  prompts: [{ index: 0 }, { index: 1 }] as PromptItem[],
  rows: [row(1, "completed"), row(0, "truncated"), row(0.5, "completed"), row(0, "completed")],
  metrics: { "eval/gsm8k/rollout/raw_reward": 0.375 },
};

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}

describe("loadEvalFunction", () => {
  it("should load a named export and name the flag when the module, the export or its type is wrong", async () => {
    const loaded = await loadEvalFunction(`${FIXTURE}#score`, cwd);
    expect(loaded.spec).toBe(`${FIXTURE}#score`);
    expect(typeof loaded.fn).toBe("function");

    const missing = await failure(loadEvalFunction("./test/fixtures/nope.mjs#score", cwd));
    expect(FunctionLoadError.isInstance(missing)).toBe(true);
    expect(missing.message).toMatch(
      /^cannot load function "\.\/test\/fixtures\/nope\.mjs#score": import of "\.\/test\/fixtures\/nope\.mjs" failed: Cannot find module .* \(--eval-function-path \(evalFunctionPath\)\)$/,
    );
    const noExport = await failure(loadEvalFunction(`${FIXTURE}#grade`, cwd));
    expect(noExport.message).toBe(
      `cannot load function "${FIXTURE}#grade": "${FIXTURE}" has no export "grade" (function exports: score, metricsOnly, badRewards, extraField, throws) (--eval-function-path (evalFunctionPath))`,
    );
    const notFunction = await failure(loadEvalFunction(`${FIXTURE}#notAFunction`, cwd));
    expect(notFunction.message).toBe(
      `cannot load function "${FIXTURE}#notAFunction": export "notAFunction" is a number, not a function (--eval-function-path (evalFunctionPath))`,
    );
  });
});

describe("applyEvalFunction", () => {
  it("should turn data into eval/<key> means and truncated ratios, and take metrics as they are (slime's log_eval_rollout_data)", async () => {
    const metrics = await applyEvalFunction(await loadEvalFunction(`${FIXTURE}#score`, cwd), input);
    expect(metrics).toEqual({
      "eval/gsm8k_pass": 0.5,
      "eval/gsm8k_pass-truncated_ratio": 0.25,
      "eval/gsm8k/rows_seen": 4,
      "eval/gsm8k/prompts_seen": 2,
      "eval/relax_keys": 1,
    });
    const only = await applyEvalFunction(await loadEvalFunction(`${FIXTURE}#metricsOnly`, cwd), input);
    expect(only).toEqual({ "eval/label": 3 });
  });

  it("should reject a wrong result with the field path, and a throwing function, naming flag, spec and dataset", async () => {
    const bad = await failure(applyEvalFunction(await loadEvalFunction(`${FIXTURE}#badRewards`, cwd), input));
    expect(EvalFunctionError.isInstance(bad)).toBe(true);
    expect((bad as EvalFunctionError).path).toBe("data.gsm8k.rewards.1");
    expect(bad.message).toBe(
      `--eval-function-path (evalFunctionPath) "${FIXTURE}#badRewards" (eval dataset "gsm8k"): returned an invalid result at data.gsm8k.rewards.1: Invalid input: expected number, received string (expected { data?: { [name]: { rewards: number[], truncated?: boolean[] } }, metrics?: { [key]: number } })`,
    );
    const extra = await failure(
      applyEvalFunction(await loadEvalFunction(`${FIXTURE}#extraField`, cwd), input),
    );
    expect((extra as EvalFunctionError).path).toBe("");
    expect(extra.message).toContain('returned an invalid result at (root): Unrecognized key: "samples"');
    const none = await failure(applyEvalFunction({ spec: "inline", fn: () => undefined as never }, input));
    expect(none.message).toContain(
      "returned an invalid result at (root): Invalid input: expected object, received undefined",
    );
    const threw = await failure(applyEvalFunction(await loadEvalFunction(`${FIXTURE}#throws`, cwd), input));
    expect(threw.message).toBe(
      `--eval-function-path (evalFunctionPath) "${FIXTURE}#throws" (eval dataset "gsm8k"): threw: Error: no grader`,
    );
    expect((threw as EvalFunctionError).path).toBeUndefined();
  });
});

describe("createEvalRunner with an eval function", () => {
  it("should merge the function's metrics into each dataset's step before onDataset, called with that dataset's prompts and rows", async () => {
    const steps = new Map<string, StepResult>();
    const runStep = createStepRunner({
      controller: {
        runStep: async (options) => {
          const step = {
            rows: options.prompts.map(() => row(1, "completed")),
            metrics: { [`eval/${options.dataset}/rollout/raw_reward`]: 1 },
          } as unknown as StepResult;
          steps.set(options.dataset!, step);
          return step;
        },
      },
      components: {
        steps: {
          numRollout: 1,
          train: { groupsPerStep: 1, groupSize: 1, concurrency: 1 },
          eval: { groupSize: 1, concurrency: 1 },
          evalSchedule: {} as never,
        },
        crossStep: { prelaunch: false, partialRollout: false, fullyAsync: false, overSampling: 1 },
      },
      prompts: [{ index: 0 }] as PromptItem[],
      evalDatasets: [
        { name: "a", prompts: [{ index: 0 }, { index: 1 }, { index: 2 }] as PromptItem[] },
        { name: "b", prompts: [{ index: 0 }] as PromptItem[] },
      ],
    });
    const evalDatasets = [
      { name: "a", prompts: [{ index: 0 }, { index: 1 }, { index: 2 }] as PromptItem[] },
      { name: "b", prompts: [{ index: 0 }] as PromptItem[] },
    ];
    const runEvals = createEvalRunner(
      runStep,
      evalDatasets,
      { warn: () => undefined },
      await loadEvalFunction(`${FIXTURE}#score`, cwd),
    );
    const seen: Array<Record<string, number>> = [];
    const runs = await runEvals({ rolloutId: 2, onDataset: (run) => seen.push({ ...run.step.metrics }) });
    expect(runs.map((run) => run.functionMetrics)).toEqual([
      {
        "eval/a_pass": 1,
        "eval/a_pass-truncated_ratio": 0,
        "eval/a/rows_seen": 3,
        "eval/a/prompts_seen": 3,
        "eval/relax_keys": 1,
      },
      {
        "eval/b_pass": 1,
        "eval/b_pass-truncated_ratio": 0,
        "eval/b/rows_seen": 1,
        "eval/b/prompts_seen": 1,
        "eval/relax_keys": 1,
      },
    ]);
    expect(seen).toEqual([
      {
        "eval/a/rollout/raw_reward": 1,
        "eval/a_pass": 1,
        "eval/a_pass-truncated_ratio": 0,
        "eval/a/rows_seen": 3,
        "eval/a/prompts_seen": 3,
        "eval/relax_keys": 1,
      },
      {
        "eval/b/rollout/raw_reward": 1,
        "eval/b_pass": 1,
        "eval/b_pass-truncated_ratio": 0,
        "eval/b/rows_seen": 1,
        "eval/b/prompts_seen": 1,
        "eval/relax_keys": 1,
      },
    ]);
    expect(steps.get("a")!.metrics["eval/a_pass"]).toBe(1);
    expect(runs[1]!.functionResult).toEqual({
      data: { b_pass: { rewards: [1], truncated: [false] } },
      metrics: { "eval/b/rows_seen": 1, "eval/b/prompts_seen": 1, "eval/relax_keys": 1 },
    });
  });
});
