/**
 * @module @relax/runtime
 * What a rollout is, independent of any CLI: the step driver and run directory, the rollout controller and
 * Group lifecycle, the generation gate, the Group journal, gateway shards, the eval schedule, the trainer
 * control API, and the agent-facing service (sessions, turn runner, request classes, encode pool) that the
 * gateway serves. Composes `@relax/chat`, `@relax/forest`, `@relax/sglang`, `@relax/protocol`,
 * `@relax/launcher` and `@relax/export`.
 */

export {
  type EvalDatasetSpec,
  type EvalPromptDataInput,
  evalDatasetNameOf,
  evalPromptDataSchema,
  parseEvalPromptData,
} from "./config/eval-prompt-data";
export { ConfigError, readConfigFile, resolveConfig } from "./config/load-config";
export { resolveTokenizerPath } from "./config/resolve-tokenizer-path";
export { type RolloutConfig, type RolloutConfigInput, rolloutConfigSchema } from "./config/rollout-config";
export {
  type ControlErrorBody,
  type ControlErrorCode,
  type ControlRecord,
  controlErrorBodySchema,
  controlErrorCodeSchema,
  controlErrorSchema,
  controlRecordSchema,
  controlSchemas,
  createControlJsonSchema,
  type EvalsRequest,
  errorRecordSchema,
  evalEndRecordSchema,
  evalRowRecordSchema,
  evalsEndRecordSchema,
  evalsRequestSchema,
  groupDroppedRecordSchema,
  type HealthResponse,
  healthResponseSchema,
  type PauseRequest,
  type PauseResponse,
  pauseRequestSchema,
  pauseResponseSchema,
  type ResumeRequest,
  type ResumeResponse,
  resumeRequestSchema,
  resumeResponseSchema,
  rowRecordSchema,
  type StatusResponse,
  type StepRequest,
  statusResponseSchema,
  stepEndRecordSchema,
  stepModeSchema,
  stepRequestSchema,
  stepStartRecordSchema,
  stepSummarySchema,
  type WeightsRequest,
  type WeightsResponse,
  weightsRequestSchema,
  weightsResponseSchema,
} from "./control/control-schemas";
export {
  convertGateCounts,
  convertGateError,
  convertGatePauseResult,
  convertGateResumeResult,
} from "./control/convert-gate-results";
export { CONTROL_BASE_PATH, type ControlAppOptions, createControlApp } from "./control/create-control-app";
export { createGateControls, type GateControlsOptions } from "./control/create-gate-controls";
export { ControlError, type ControlRecordSink, type RolloutService } from "./control/rollout-service";
export { readBearerToken, tokensEqual } from "./control/tokens-equal";
export { type BudgetControl, bindBudgetsToGate } from "./controller/bind-budgets-to-gate";
export { DatasetError, type PromptItem, readPromptDataset } from "./controller/prompt-dataset";
export {
  type ControllerStepOptions,
  type CrossStepOptions,
  RolloutController,
  RolloutInterruptedError,
  RolloutStalledError,
  type StepResult,
  stepMetrics,
} from "./controller/rollout-controller";
export { type GroupContext, type GroupResult, type LaunchAgent, runGroup } from "./controller/run-group";
export { type HeldTurnsSource, withEngineFaultHold } from "./controller/with-engine-fault-hold";
export {
  type DurableStepOptions,
  type DurableStepResult,
  StepDriver,
  type StepDriverOptions,
  StepOrderError,
} from "./driver/step-driver";
export { BackendUnavailableError } from "./engine/backend-unavailable-error";
export { type Backend, startBackend } from "./engine/start-backend";
export { createLogger, formatAgenticEvent } from "./report/create-logger";
export { roundMetrics } from "./report/round-metrics";
export { type RunCounters, RunReporter } from "./report/run-reporter";
export { AsyncDisposableStack } from "./runtime/async-disposable-stack";
export {
  createRolloutRuntime,
  type EvalDataset,
  type EvalRun,
  type RolloutRuntime,
  type RuntimeEvalOptions,
  type RuntimeIo,
  type RuntimeStepOptions,
} from "./runtime/create-rollout-runtime";
export {
  applyEvalFunction,
  type EvalFunction,
  EvalFunctionError,
  type EvalFunctionInput,
  type EvalFunctionResult,
  evalFunctionMetrics,
  evalFunctionResultSchema,
  type LoadedEvalFunction,
  loadEvalFunction,
  runEvalFunction,
} from "./runtime/eval-function";
export { evalDueAfterStep, evalRolloutIds } from "./runtime/eval-schedule";
export {
  GROUP_JOURNAL_FILE,
  planStepResume,
  readGroupJournal,
  resetGroupJournal,
  StepRowsWriter,
} from "./runtime/group-journal";
export { type GatewayServer, listenGateway } from "./runtime/listen-gateway";
export {
  defaultEvalConcurrency,
  type EvalDatasetPlan,
  type EvalSchedulePlan,
  planRolloutComponents,
  type RolloutComponents,
} from "./runtime/plan-rollout-components";
export { UnknownEvalDatasetError } from "./runtime/unknown-eval-dataset-error";
export {
  createRolloutService,
  type RolloutServiceOptions,
  type ServeService,
} from "./serve/create-rollout-service";
export {
  hashRolloutConfig,
  openRunDir,
  RUN_LOCAL_CONFIG_KEYS,
  RUN_STATE_FILE,
  type RunState,
  readRunState,
  runStateSchema,
  writeRunState,
} from "./serve/run-dir";
export { createGatewayApp, type GatewayAppOptions } from "./service/create-gateway-app";
export {
  createTurnRunner,
  type RolloutSampling,
  type TurnEvent,
  type TurnRunnerOptions,
} from "./service/create-turn-runner";
export { createEncodeOffload, encodeWorkers } from "./service/encode-offload";
export { EncodePool } from "./service/encode-pool";
export {
  classifyEngineFault,
  DEFAULT_ENGINE_FAULT_BUDGET,
  type EngineFaultBudget,
  type EngineFaultCounters,
  type EngineFaultEngine,
  EngineFaultHold,
  type EngineFaultKind,
  type EngineFaultLogger,
  type EngineFaultSnapshot,
  type EngineFaultTurn,
  type EngineFaultView,
  EngineStalledCall,
} from "./service/engine-fault-hold";
export { GenerationAbortedError, GroupDroppedError, SessionNotFoundError } from "./service/gateway-errors";
export { GatewaySession } from "./service/gateway-session";
export {
  type ContinuedGeneration,
  type GenerateWithContinuationOptions,
  generateWithContinuation,
} from "./service/generate-with-continuation";
export {
  type GateChange,
  type GateControl,
  type GateCounts,
  type GateEngine,
  GatePauseCancelledError,
  type GatePauseResult,
  GatePauseTimeoutError,
  type GateResumeResult,
  type GateTicket,
  GenerationGate,
  type GenerationGateOptions,
  type GenerationGateState,
} from "./service/generation-gate";
export {
  type ClassifiableRequest,
  type ClassifierSessionView,
  createRequestClassifier,
  DEFAULT_CLASS_POLICIES,
  detectHarness,
  type KnownHarness,
  REQUEST_CLASS_POLICIES,
  REQUEST_CLASSES,
  type RequestClass,
  type RequestClassConfig,
  type RequestClassConfigInput,
  type RequestClassification,
  type RequestClassifier,
  type RequestClassPolicy,
  type RequestClassRule,
} from "./service/request-class/classify-request";
export { SessionRegistry } from "./service/session-registry";
export {
  AUTO_SHARDS_MAX,
  autoShardCount,
  measuredAutoShardCount,
  type ShardCountInput,
} from "./shard/auto-shard-count";
export { ShardPool } from "./shard/shard-pool";
