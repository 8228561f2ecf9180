/**
 * @module @relax/rollout
 * The Controller (docs/architecture.md#three-modules): Groups of sessions into steps, durably. The Group
 * lifecycle (Prepare → first-request barrier → Runtime → exit → export), train and eval steps, cross-step
 * scheduling, engine health, the prompt dataset, the durable step driver, the Group journal and run
 * directory, evals, run reports and the trainer control API `/rollout/v1`.
 */

// The trainer control API (wire schemas: docs/trainer-api.md)
export {
  type ControlRecord,
  controlErrorBodySchema,
  controlRecordSchema,
  controlSchemas,
  createControlJsonSchema,
  type StatusResponse,
  statusResponseSchema,
  stepRequestSchema,
} from "./control/control-schemas";
export { CONTROL_BASE_PATH, type ControlAppOptions, createControlApp } from "./control/create-control-app";
export { createGateControls, type GateControlsOptions } from "./control/create-gate-controls";
export { ControlError, type ControlRecordSink, type RolloutService } from "./control/rollout-service";
// Datasets
export {
  type EvalDatasetSpec,
  type EvalPromptDataInput,
  evalDatasetNameOf,
  evalPromptDataSchema,
  parseEvalPromptData,
} from "./dataset/eval-prompt-data";
export { DatasetError, type PromptItem, readPromptDataset } from "./dataset/prompt-dataset";
// The durable step driver
export {
  type DurableStepOptions,
  type DurableStepResult,
  StepDriver,
  type StepDriverOptions,
  StepOrderError,
} from "./driver/step-driver";
// Engine health
export { checkBackendHealth } from "./engine/check-backend-health";
export { EngineHealth } from "./engine/engine-health";
// Errors
export { ConfigError } from "./errors/config-error";
export { RolloutInterruptedError } from "./errors/rollout-interrupted-error";
export { RolloutStalledError } from "./errors/rollout-stalled-error";
export { UnknownEvalDatasetError } from "./errors/unknown-eval-dataset-error";
// Evals
export {
  applyEvalFunction,
  type EvalFunction,
  EvalFunctionError,
  type EvalFunctionResult,
  loadEvalFunction,
} from "./eval/eval-function";
export { type EvalSchedulePlan, evalDueAfterStep, evalRolloutIds } from "./eval/eval-schedule";
// The Group lifecycle
export { bindBudgetsToGate } from "./group/bind-budgets-to-gate";
export { type GroupContext, type GroupResult, type LaunchAgent, runGroup } from "./group/run-group";
// The Group journal and the run directory
export {
  GROUP_JOURNAL_FILE,
  planStepResume,
  readGroupJournal,
  StepRowsWriter,
} from "./journal/group-journal";
export { openRunDir, RUN_STATE_FILE, type RunState, readRunState, writeRunState } from "./journal/run-dir";
// Reports
export { createLogger, formatAgenticEvent } from "./report/create-logger";
export { roundMetrics } from "./report/round-metrics";
export { type RunCounters, RunReporter } from "./report/run-reporter";
// The rollout service of `relax serve`
export {
  createRolloutService,
  type RolloutServiceOptions,
  type ServeService,
} from "./serve/create-rollout-service";
export type { ServedRun } from "./serve/served-run";
export type {
  ControllerStepOptions,
  CrossStepOptions,
  GroupLaunchInfo,
  StepResult,
} from "./step/controller-options";
// Steps
export { createEvalRunner, createStepRunner } from "./step/create-step-runner";
export { RolloutController } from "./step/rollout-controller";
export { stepMetrics } from "./step/step-metrics";
export type {
  CrossStepPlan,
  EvalDataset,
  EvalRun,
  RuntimeEvalOptions,
  RuntimeStepOptions,
  StepPlan,
  StepRunner,
  StepsPlan,
} from "./step/step-runner";
