import type { GateControl } from "@relax/agent-api";
import type { PromptItem } from "../dataset/prompt-dataset";
import type { EvalFunctionResult } from "../eval/eval-function";
import type { EvalSchedulePlan } from "../eval/eval-schedule";
import type { GroupResult } from "../group/run-group";
import type { GroupLaunchInfo, StepResult } from "./controller-options";

/** The shape of one kind of step: how many Groups must export, of how many sessions, how many at once. */
export interface StepPlan {
  /** Groups that must export for the step to close (eval: `undefined` = every eval prompt once). */
  groupsPerStep?: number;
  /** Sessions per Group. */
  groupSize: number;
  /** Resident Groups at most. */
  concurrency: number;
}

/** Train and eval steps of a run: how many train steps, each kind's shape, and when evals run. */
export interface StepsPlan {
  /** `--num-rollout`: train steps of `relax rollout`. */
  numRollout: number;
  train: Required<StepPlan>;
  eval: StepPlan;
  evalSchedule: EvalSchedulePlan;
}

/** Cross-step scheduling of train Groups (docs/contract.md#cross-step-scheduling). */
export interface CrossStepPlan {
  prelaunch: boolean;
  partialRollout: boolean;
  fullyAsync: boolean;
  /** `--partial-rollout-max-aborted-count`. */
  maxAbortedCount?: number;
  /** `--over-sampling-batch-size` (default `--rollout-batch-size`). */
  overSampling: number;
}

/** Options of {@link StepRunner.runStep}. */
export interface RuntimeStepOptions {
  /** The step's rollout id (in Group ids, logs and debug dumps). */
  rolloutId: number;
  /** `train` continues the train dataset at {@link StepRunner.cursor}; `eval` runs eval prompts. */
  mode: "train" | "eval";
  /** Prompts to use instead of the configured dataset (train: from the cursor, cycling; eval: from 0). */
  prompts?: readonly PromptItem[];
  /**
   * Eval only: the eval dataset to run (its prompts, unless `prompts` is given, and its `eval/<name>/`
   * metric prefix). @default the first eval dataset
   */
  dataset?: string;
  /**
   * Groups that must export for the step to close.
   * @default train: `--rollout-batch-size`; eval: one per eval prompt
   */
  groups?: number;
  /** Resident Groups at most. @default `--agentic-concurrency` (eval: `--agentic-eval-concurrency`) */
  concurrency?: number;
  /** Called with each Group's result (its rows in `result.export.rows`) as soon as the Group finishes. */
  onGroup?: (result: GroupResult, info: GroupLaunchInfo) => void;
  /** Train only: prompt positions to run first (a step resumed from the run journal). */
  resumeCursors?: readonly number[];
  /** Group index of the step's first Group. @default 0 */
  firstGroupIndex?: number;
  /** Aborting it interrupts this step only. */
  signal?: AbortSignal;
  /**
   * Train: another train step follows (`--agentic-prelaunch` starts its Groups early only then).
   * @default rolloutId + 1 < --num-rollout
   */
  nextStepFollows?: boolean;
}

/** One eval dataset as read at start: its name and its prompts. */
export interface EvalDataset {
  /** The `--eval-prompt-data` name (the `eval/<name>/` metric prefix). */
  name: string;
  prompts: readonly PromptItem[];
}

/** Options of {@link StepRunner.runEvals}. */
export interface RuntimeEvalOptions {
  /** The rollout id of the eval steps (in Group ids, logs and debug dumps). */
  rolloutId: number;
  /** Names of the eval datasets to run, in this order. @default every eval dataset, in configured order */
  datasets?: readonly string[];
  /** Called with each Group's result as soon as it finishes, with the name of its dataset. */
  onGroup?: (dataset: string, result: GroupResult) => void;
  /**
   * Called as soon as each dataset's eval step has finished, before the next dataset starts. A throwing
   * callback is logged and does not stop the remaining datasets.
   */
  onDataset?: (run: EvalRun) => void;
  /** Aborting it interrupts the running eval step; the datasets after it do not run. */
  signal?: AbortSignal;
}

/** What one dataset of {@link StepRunner.runEvals} produced. */
export interface EvalRun {
  dataset: string;
  /** The eval step (its `metrics` keys prefixed `eval/<dataset>/`, its rows with advantage 0). */
  step: StepResult;
  /**
   * The eval function's metrics (`--eval-function-path`), already merged into `step.metrics`; absent
   * without an eval function.
   */
  functionMetrics?: Record<string, number>;
  /** The eval function's validated result (`{data?, metrics?}`); absent without an eval function. */
  functionResult?: EvalFunctionResult;
}

/**
 * What steps run on: a started run's datasets, cursor, gate and step plans, and its `runStep` / `runEvals`
 * (the Controller's view of a run; `RolloutRuntime` of `@relax/runtime` is one). The step driver and the
 * rollout service take this, never the whole runtime.
 */
export interface StepRunner {
  /** The train dataset. */
  readonly prompts: readonly PromptItem[];
  /** The eval datasets in the order they run (`--eval-prompt-data`); empty without one. */
  readonly evalDatasets: readonly EvalDataset[];
  /** Train prompts taken so far; prompt `cursor % prompts.length` comes next. Settable to resume a run. */
  cursor: number;
  /** The run's generation gate: its weight version labels the rows. */
  readonly gate: GateControl;
  /** The step plans (`components.steps` of the runtime). */
  readonly steps: StepsPlan;
  /** Training rows JSONL path (absolute; `{rollout_id}` replaced per step). */
  readonly output: string;
  /**
   * Runs one step: Groups over the prompts until `groups` have exported.
   * @throws RolloutStalledError when Groups keep dropping; RolloutInterruptedError when a signal aborted.
   */
  runStep(options: RuntimeStepOptions): Promise<StepResult>;
  /**
   * Runs eval datasets one after another (never two at once, never with a train step), each as one eval
   * step of all its prompts with `RELAX_ROLLOUT_MODE=eval`; eval rows never train.
   * @throws UnknownEvalDatasetError (before any session starts) when `datasets` names an unknown dataset
   *   or one twice; RolloutStalledError / RolloutInterruptedError as {@link StepRunner.runStep}.
   */
  runEvals(options: RuntimeEvalOptions): Promise<EvalRun[]>;
  /**
   * Whether the eval datasets are due after train step `rolloutId` by `--eval-interval`. False without an
   * interval or without eval datasets.
   */
  evalDue(rolloutId: number): boolean;
}
