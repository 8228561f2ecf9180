/**
 * @module @relax/rollout
 * The Controller (docs/architecture.md#three-modules): Groups of sessions into steps, durably. The Group
 * lifecycle (Prepare → first-request barrier → Runtime → exit → export), train and eval steps, cross-step
 * scheduling, engine health, the prompt dataset, the durable step driver, the Group journal and run
 * directory, evals, run reports and the trainer control API `/rollout/v1`.
 *
 * This file is the public contract. The control API's request and response schemas, the Group journal's
 * and run state's file helpers and the eval-data helpers are in `@relax/rollout/internal` (unstable); test
 * helpers are exported from `@relax/rollout/testing`.
 */

export { ControlError } from "./control/control-error";
// The trainer control API (wire schemas: docs/trainer-api.md)
export {
  type ControlRecord,
  controlRecordSchema,
  createControlJsonSchema,
  type StatusResponse,
} from "./control/control-schemas";
export { CONTROL_BASE_PATH, type ControlAppOptions, createControlApp } from "./control/create-control-app";
export { createGateControls, type GateControlsOptions } from "./control/create-gate-controls";
export type { ControlRecordSink, RolloutService } from "./control/rollout-service";
// Datasets
export {
  type EvalDatasetSpec,
  type EvalPromptDataInput,
  evalPromptDataSchema,
} from "./dataset/eval-prompt-data";
export { type PromptItem, readPromptDataset } from "./dataset/prompt-dataset";
// The durable step driver
export {
  type DurableStepOptions,
  type DurableStepResult,
  StepDriver,
  type StepDriverOptions,
} from "./driver/step-driver";
// Engine health
export { checkBackendHealth } from "./engine/check-backend-health";
export { EngineHealth } from "./engine/engine-health";
// Errors
export { ConfigError } from "./errors/config-error";
export { DatasetError } from "./errors/dataset-error";
export { EvalFunctionError } from "./errors/eval-function-error";
export { RolloutInterruptedError } from "./errors/rollout-interrupted-error";
export { RolloutStalledError } from "./errors/rollout-stalled-error";
export { StepOrderError } from "./errors/step-order-error";
export { UnknownEvalDatasetError } from "./errors/unknown-eval-dataset-error";
// Evals
export {
  type EvalFunction,
  type EvalFunctionResult,
  loadEvalFunction,
} from "./eval/eval-function";
export { type EvalSchedulePlan, evalDueAfterStep, evalRolloutIds } from "./eval/eval-schedule";
// The Group lifecycle
export { type GroupContext, type GroupResult, type LaunchAgent, runGroup } from "./group/run-group";
// The run directory
export { openRunDir, readRunState } from "./journal/run-dir";
// Reports
export { createLogger } from "./report/create-logger";
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
