import type { Logger } from "pino";
import type { PromptItem } from "../dataset/prompt-dataset";
import { UnknownEvalDatasetError } from "../errors/unknown-eval-dataset-error";
import { evalFunctionMetrics, type LoadedEvalFunction, runEvalFunction } from "../eval/eval-function";
import type { GroupResult } from "../group/run-group";
import type { ControllerStepOptions, StepResult } from "./controller-options";
import type {
  CrossStepPlan,
  EvalDataset,
  EvalRun,
  RuntimeEvalOptions,
  RuntimeStepOptions,
  StepsPlan,
} from "./step-runner";

/** What {@link createStepRunner} needs: the controller's `runStep`, the step plans and the datasets. */
export interface StepRunnerDeps {
  controller: { runStep(options: ControllerStepOptions): Promise<StepResult> };
  components: { steps: StepsPlan; crossStep: CrossStepPlan };
  /** The train dataset. */
  prompts: readonly PromptItem[];
  evalDatasets: readonly EvalDataset[];
}

/**
 * The runtime's `runStep`: picks the step's prompts (the given ones, else the train dataset, else the
 * named — by default the first — eval dataset) and its plan (train or eval: Groups per step, Group size,
 * concurrency), and runs the controller's step. A train step's over-sampling is the configuration's
 * surplus over its own batch (`groups + overSampling − train.groupsPerStep`); `nextStepFollows` defaults
 * to `rolloutId + 1 < numRollout`.
 *
 * @returns a function that rejects with UnknownEvalDatasetError for an unknown `dataset`, RangeError when
 *   the step has no prompts, and as the controller's `runStep` otherwise.
 */
export function createStepRunner(deps: StepRunnerDeps): (options: RuntimeStepOptions) => Promise<StepResult> {
  const { controller, components, prompts, evalDatasets } = deps;
  const { crossStep } = components;
  return (options) => {
    const train = options.mode === "train";
    let dataset: EvalDataset | undefined;
    if (!train) {
      dataset =
        options.dataset !== undefined
          ? evalDatasets.find((item) => item.name === options.dataset)
          : evalDatasets[0];
      if (options.dataset !== undefined && dataset === undefined) {
        return Promise.reject(
          new UnknownEvalDatasetError({
            names: [options.dataset],
            known: evalDatasets.map((item) => item.name),
          }),
        );
      }
    }
    const stepPrompts = options.prompts ?? (train ? prompts : (dataset?.prompts ?? []));
    if (stepPrompts.length === 0) {
      return Promise.reject(
        new RangeError(`rollout ${options.rolloutId}: no ${options.mode} prompts (--eval-prompt-data)`),
      );
    }
    const plan = train ? components.steps.train : components.steps.eval;
    return controller.runStep({
      rolloutId: options.rolloutId,
      mode: options.mode,
      prompts: stepPrompts,
      groupsPerStep: options.groups ?? plan.groupsPerStep ?? stepPrompts.length,
      groupSize: plan.groupSize,
      concurrency: options.concurrency ?? plan.concurrency,
      ...(train
        ? {
            // The over-sampling surplus of the configuration, over the step's own batch.
            overSampling:
              (options.groups ?? plan.groupsPerStep ?? stepPrompts.length) +
              crossStep.overSampling -
              components.steps.train.groupsPerStep,
            nextStepFollows: options.nextStepFollows ?? options.rolloutId + 1 < components.steps.numRollout,
          }
        : {}),
      ...(dataset !== undefined ? { dataset: dataset.name } : {}),
      ...(options.onGroup !== undefined ? { onGroup: options.onGroup } : {}),
      ...(options.resumeCursors !== undefined ? { resumeCursors: options.resumeCursors } : {}),
      ...(options.firstGroupIndex !== undefined ? { firstGroupIndex: options.firstGroupIndex } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
  };
}

/**
 * The runtime's `runEvals`: checks the names first (every one known, none twice), then runs one eval step
 * per dataset in order through `runStep`, calling `onDataset` after each (a throwing `onDataset` is
 * logged at WARN and the remaining datasets still run). With an eval function (`--eval-function-path`) its
 * metrics are merged into each dataset's step metrics before `onDataset` sees them.
 *
 * @returns a function that throws UnknownEvalDatasetError before any step starts for an unknown or
 *   repeated name, EvalFunctionError when the eval function fails (the datasets after it do not run), and
 *   whatever `runStep` throws.
 */
export function createEvalRunner(
  runStep: (options: RuntimeStepOptions) => Promise<StepResult>,
  evalDatasets: readonly EvalDataset[],
  logger: Pick<Logger, "warn">,
  evalFunction?: LoadedEvalFunction,
): (options: RuntimeEvalOptions) => Promise<EvalRun[]> {
  return async (options) => {
    const known = evalDatasets.map((item) => item.name);
    const names = options.datasets ?? known;
    const unknown = names.filter((name) => !known.includes(name));
    if (unknown.length > 0) throw new UnknownEvalDatasetError({ names: unknown, known });
    const repeated = names.filter((name, index) => names.indexOf(name) !== index);
    if (repeated.length > 0) throw new UnknownEvalDatasetError({ names: repeated, known, repeated: true });
    const runs: EvalRun[] = [];
    for (const name of names) {
      const { onGroup } = options;
      const step = await runStep({
        rolloutId: options.rolloutId,
        mode: "eval",
        dataset: name,
        ...(onGroup !== undefined ? { onGroup: (result: GroupResult) => onGroup(name, result) } : {}),
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
      });
      const run: EvalRun = { dataset: name, step };
      if (evalFunction !== undefined) {
        const prompts = evalDatasets.find((item) => item.name === name)!.prompts;
        const input = { rolloutId: options.rolloutId, dataset: name, prompts, rows: step.rows };
        run.functionResult = await runEvalFunction(evalFunction, { ...input, metrics: step.metrics });
        run.functionMetrics = evalFunctionMetrics(run.functionResult);
        Object.assign(step.metrics, run.functionMetrics);
      }
      runs.push(run);
      try {
        options.onDataset?.(run);
      } catch (error) {
        // Like onGroup: a throwing callback is logged and does not stop the remaining datasets.
        logger.warn(
          { rollout: options.rolloutId, dataset: name, err: String(error) },
          "onDataset callback threw",
        );
      }
    }
    return runs;
  };
}
