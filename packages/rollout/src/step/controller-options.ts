import type { ExportMode, TrainingRow } from "@relax/export";
import type { Logger } from "pino";
import type { PromptItem } from "../dataset/prompt-dataset";
import type { EngineHealth } from "../engine/engine-health";
import type { GroupContext, GroupResult } from "../group/run-group";
import type { RunReporter } from "../report/run-reporter";

/** Options of {@link RolloutController}. */
export interface RolloutControllerOptions {
  group: GroupContext;
  /**
   * Told each time the train step running changes (a sharded gateway forwards it to its shards, which
   * stamp each turn with it; see {@link RolloutController.currentStep}).
   */
  onCurrentStep?: (step: number | undefined) => void;
  logger: Logger;
  reporter: RunReporter;
  /** Decoder for debug dumps (special tokens kept). */
  decode: (ids: number[]) => string;
  logPassrate: boolean;
  saveDebugRolloutData?: string;
  /**
   * Stop a step after this many dropped Groups in a row (every replacement failing means the agent or the
   * configuration is broken, not the data). @default 3 × the step's Group count, at least 8
   */
  maxConsecutiveDrops?: number;
  /**
   * Cross-step scheduling of train Groups (see docs/contract.md#cross-step-scheduling). All off: every
   * step leases its Groups at once and interrupts the ones still running when it closes.
   */
  crossStep?: CrossStepOptions;
  /**
   * Engine outage handling (see {@link EngineHealth}): Groups wait for the engine's health before they
   * start, and drops the backend caused are counted apart (`backend_*`), outside `maxConsecutiveDrops`.
   */
  engineHealth?: EngineHealth;
}

/** What {@link ControllerStepOptions.onGroup} learns about a Group besides its result. */
export interface GroupLaunchInfo {
  /** The prompt's position: the train cursor value the Group took (eval: its position in the eval set). */
  cursor: number;
  /** The Group's index within the step (`group_index` of its rows). */
  groupIndex: number;
}

/** The cross-step flags of {@link RolloutControllerOptions}. */
export interface CrossStepOptions {
  /**
   * `--partial-rollout`: at step close the generation gate is paused (in-flight engine calls aborted,
   * partial output kept, HTTP requests held, budgets paused) and unfinished Groups stay resident; the next
   * train step reopens the gate and they continue under the new weights.
   */
  partialRollout?: boolean;
  /**
   * `--fully-async`: unfinished Groups stay resident across steps and keep running between them (unless
   * `partialRollout` pauses them). Every step still closes on exactly its batch (`groupsPerStep` exported
   * Groups: what the trainer consumes per optimizer step, as slime's fully-async rollout gives it; see
   * docs/contract.md#deviations); Groups that finish beyond it are queued for the next step, never dropped,
   * and no debt is carried.
   */
  fullyAsync?: boolean;
  /**
   * `--agentic-prelaunch`: while resident capacity is free and a next step follows, Groups for the next
   * step are started early and held after their first-request barrier until that step leases them. With
   * `fullyAsync` they are not held: they run at once and a step takes whichever Groups finish first.
   */
  prelaunch?: boolean;
  /**
   * How often a fully-async step re-checks its close condition while Groups run (their engine activity
   * changes without a Group finishing), in ms. @default 25
   */
  closeCheckIntervalMs?: number;
}

/** Options of {@link RolloutController.runStep}. */
export interface ControllerStepOptions {
  rolloutId: number;
  /** The dataset: train steps continue from {@link RolloutController.cursor}; eval steps start at the top. */
  prompts: readonly PromptItem[];
  /** Groups that must export for the step to close. */
  groupsPerStep: number;
  /** Sessions per Group. */
  groupSize: number;
  /** Resident Groups at most (Prepare + Runtime). */
  concurrency: number;
  mode: ExportMode;
  /**
   * The eval dataset this step runs (eval only): its metric keys are prefixed `eval/<dataset>/` instead
   * of `eval/`, its debug dump replaces `{rollout_id}` with `eval_<rolloutId>_<dataset>`, and its
   * `accounting_*` log lines carry `dataset=`.
   */
  dataset?: string;
  /**
   * Called with each Group's result as soon as it finishes (exported or dropped), before the step closes.
   * A throwing callback is logged and does not stop the step.
   */
  onGroup?: (result: GroupResult, info: GroupLaunchInfo) => void;
  /** Aborting it interrupts this step only (combined with the Group context's run signal). */
  signal?: AbortSignal;
  /**
   * `--over-sampling-batch-size` (train): Groups kept in flight are `debt + overSampling − groupsPerStep`,
   * so a dropped or filtered Group is already replaced by a running one. @default groupsPerStep
   */
  overSampling?: number;
  /** Train: another train step follows this one (prelaunch only starts Groups for a step that will run). */
  nextStepFollows?: boolean;
  /**
   * Train only: prompt positions (cursor values) to run first, before continuing at {@link
   * RolloutController.cursor}; a step resumed from the run journal re-runs the prompts its killed run had
   * in flight. @default none
   */
  resumeCursors?: readonly number[];
  /** Group index of the step's first Group (a resumed step continues after its journaled Groups). @default 0 */
  firstGroupIndex?: number;
}

/** What one rollout step produced. */
export interface StepResult {
  rolloutId: number;
  mode: ExportMode;
  /** The eval dataset's name, for an eval step given one. */
  dataset?: string;
  rows: TrainingRow[];
  groups: GroupResult[];
  metrics: Record<string, number>;
  wallSeconds: number;
  /** Train: Groups still owed when the step closed (0 for a step that returns: every step fills its batch). */
  debt?: number;
  /** Train: Groups resident (agents alive) when the step closed, prelaunched ones included. */
  residentGroups?: number;
  /**
   * Train: finished Groups kept for the next step when the step closed (over-sampling or cross-step
   * surplus: they fill the next step's batch first).
   */
  queuedGroups?: number;
}
