import { describe, expect, it } from "vitest";
import type { PromptItem } from "../dataset/prompt-dataset";
import { UnknownEvalDatasetError } from "../errors/unknown-eval-dataset-error";
import type { ControllerStepOptions, StepResult } from "./controller-options";
import { createEvalRunner, createStepRunner, type StepRunnerDeps } from "./create-step-runner";

const prompt = (index: number): PromptItem => ({ index }) as PromptItem;
const stepResult = { rows: [] } as unknown as StepResult;

function deps(): StepRunnerDeps & { calls: ControllerStepOptions[] } {
  const calls: ControllerStepOptions[] = [];
  return {
    calls,
    controller: {
      runStep: async (options) => {
        calls.push(options);
        return stepResult;
      },
    },
    components: {
      steps: {
        numRollout: 3,
        train: { groupsPerStep: 4, groupSize: 2, concurrency: 6 },
        eval: { groupSize: 1, concurrency: 2 },
        evalSchedule: {} as never,
      },
      crossStep: { prelaunch: false, partialRollout: false, fullyAsync: false, overSampling: 6 },
    },
    prompts: [prompt(0), prompt(1)],
    evalDatasets: [
      { name: "a", prompts: [prompt(10), prompt(11), prompt(12)] },
      { name: "b", prompts: [prompt(20)] },
    ],
  };
}

describe("createStepRunner", () => {
  it("should run a train step with the train plan, the over-sampling surplus and nextStepFollows", async () => {
    const d = deps();
    await createStepRunner(d)({ rolloutId: 1, mode: "train" });
    await createStepRunner(d)({ rolloutId: 2, mode: "train", groups: 2 });
    expect(d.calls[0]).toEqual({
      rolloutId: 1,
      mode: "train",
      prompts: d.prompts,
      groupsPerStep: 4,
      groupSize: 2,
      concurrency: 6,
      overSampling: 6,
      nextStepFollows: true,
    });
    // groups 2 + configured 6 − batch 4; the last rollout has no next step.
    expect(d.calls[1]).toMatchObject({ groupsPerStep: 2, overSampling: 4, nextStepFollows: false });
  });

  it("should run an eval step over the first (or named) eval dataset, one Group per prompt", async () => {
    const d = deps();
    await createStepRunner(d)({ rolloutId: 0, mode: "eval" });
    await createStepRunner(d)({ rolloutId: 0, mode: "eval", dataset: "b" });
    expect(d.calls[0]).toEqual({
      rolloutId: 0,
      mode: "eval",
      prompts: d.evalDatasets[0]!.prompts,
      groupsPerStep: 3,
      groupSize: 1,
      concurrency: 2,
      dataset: "a",
    });
    expect(d.calls[1]).toMatchObject({ dataset: "b", groupsPerStep: 1 });
  });

  it("should reject an unknown eval dataset and a step without prompts", async () => {
    const d = deps();
    const run = createStepRunner(d);
    await expect(run({ rolloutId: 0, mode: "eval", dataset: "zz" })).rejects.toBeInstanceOf(
      UnknownEvalDatasetError,
    );
    await expect(run({ rolloutId: 5, mode: "train", prompts: [] })).rejects.toThrow(
      "rollout 5: no train prompts (--eval-prompt-data)",
    );
    await expect(
      createStepRunner({ ...d, evalDatasets: [] })({ rolloutId: 0, mode: "eval" }),
    ).rejects.toThrow(RangeError);
    expect(d.calls).toEqual([]);
  });
});

describe("createEvalRunner", () => {
  it("should run each dataset in order, tagging Groups with it, and survive a throwing onDataset", async () => {
    const d = deps();
    const warnings: unknown[] = [];
    const runEvals = createEvalRunner(createStepRunner(d), d.evalDatasets, {
      warn: ((object: unknown) => warnings.push(object)) as never,
    });
    const seen: string[] = [];
    const runs = await runEvals({
      rolloutId: 7,
      onDataset: (run) => {
        seen.push(run.dataset);
        throw new Error("boom");
      },
    });
    expect(runs).toEqual([
      { dataset: "a", step: stepResult },
      { dataset: "b", step: stepResult },
    ]);
    expect(seen).toEqual(["a", "b"]);
    expect(d.calls.map((call) => call.dataset)).toEqual(["a", "b"]);
    expect(warnings).toEqual([
      { rollout: 7, dataset: "a", err: "Error: boom" },
      { rollout: 7, dataset: "b", err: "Error: boom" },
    ]);
  });

  it("should refuse unknown and repeated names before any step", async () => {
    const d = deps();
    const runEvals = createEvalRunner(createStepRunner(d), d.evalDatasets, { warn: (() => {}) as never });
    await expect(runEvals({ rolloutId: 0, datasets: ["a", "x"] })).rejects.toMatchObject({ names: ["x"] });
    await expect(runEvals({ rolloutId: 0, datasets: ["b", "b"] })).rejects.toThrow(
      "eval dataset(s) named more than once: b",
    );
    expect(d.calls).toEqual([]);
  });
});
