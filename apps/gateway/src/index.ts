/**
 * @module @relax/gateway
 * The `relax` CLI and gateway service: composes `@relax/chat`, `@relax/forest`, `@relax/sglang`,
 * `@relax/standin`, `@relax/protocol`, `@relax/launcher` and `@relax/export` into rollouts over a dataset.
 */
export { ConfigError, readConfigFile, resolveConfig } from "./config/load-config";
export { type RolloutConfig, type RolloutConfigInput, rolloutConfigSchema } from "./config/rollout-config";
export { type PromptItem, readPromptDataset } from "./controller/prompt-dataset";
export {
  RolloutController,
  RolloutInterruptedError,
  RolloutStalledError,
  type StepResult,
} from "./controller/rollout-controller";
export { type GroupContext, type GroupResult, runGroup } from "./controller/run-group";
export { type Backend, startBackend } from "./engine/start-backend";
export { formatSummary, type RunSummary, summarizeRun } from "./report/format-summary";
export { type RolloutRun, runRollout } from "./run-rollout";
export { createGatewayApp, type GatewayAppOptions } from "./service/create-gateway-app";
export {
  createTurnRunner,
  type RolloutSampling,
  type TurnEvent,
  type TurnRunnerOptions,
} from "./service/create-turn-runner";
export { GenerationAbortedError, GroupDroppedError, SessionNotFoundError } from "./service/gateway-errors";
export { GatewaySession } from "./service/gateway-session";
export { SessionRegistry } from "./service/session-registry";
