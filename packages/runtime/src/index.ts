/**
 * @module @relax/runtime
 * Composition only: a rollout configuration → its components → a started run. Composes the Gateway
 * (`@relax/agent-api`), the Controller (`@relax/rollout`) and the agent launcher (`@relax/launcher`) with the
 * export pipeline and the inference backend. The stand-in engine is injected by the caller (`RuntimeIo.standin`).
 */

export { hashRolloutConfig } from "./config/hash-rollout-config";
export { readConfigFile, resolveConfig } from "./config/load-config";
export { resolveTokenizerPath } from "./config/resolve-tokenizer-path";
export { type RolloutConfig, type RolloutConfigInput, rolloutConfigSchema } from "./config/rollout-config";
export type { StandinStarter, StandinStartOptions } from "./engine/start-backend";
export { createRolloutRuntime, type RolloutRuntime, type RuntimeIo } from "./run/create-rollout-runtime";
export { gatewayShardEntry } from "./run/gateway-shard-entry";
