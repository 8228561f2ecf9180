/**
 * @module @relax/agent-api
 * The Gateway (docs/architecture.md#three-modules): one agent request becomes one committed turn. The
 * agent-facing HTTP app over the three protocols (`/v1/chat/completions`, `/v1/responses`,
 * `/v1/messages`), sessions and their registry, the turn runner (token in / token out through SGLang's
 * native `/generate`), the generation gate, the engine-fault hold, request classes, the encode pool and
 * gateway shards. Depends on `@relax/chat`, `@relax/forest`, `@relax/protocol` and `@relax/sglang` only.
 */

// Encode pool: rendering and tokenising large observations off the event loop
export { createEncodeOffload, type EncodeOffload, encodeWorkers } from "./encode/encode-offload";
export { EncodePool } from "./encode/encode-pool";
// Engine failures of in-flight turns (docs/contract.md#engine-failures)
export {
  classifyEngineFault,
  DEFAULT_ENGINE_FAULT_BUDGET,
  type EngineFaultBudget,
  type EngineFaultCounters,
  EngineFaultHold,
  type EngineFaultView,
} from "./engine-fault/engine-fault-hold";
export { EngineFaultTotals } from "./engine-fault/engine-fault-totals";
export { isEngineOutageError } from "./engine-fault/is-engine-outage-error";
export { type HeldTurnsSource, withEngineFaultHold } from "./engine-fault/with-engine-fault-hold";
// Errors
export { BackendUnavailableError } from "./errors/backend-unavailable-error";
export { GatePauseCancelledError } from "./errors/gate-pause-cancelled-error";
export { GatePauseTimeoutError } from "./errors/gate-pause-timeout-error";
export { GenerationAbortedError } from "./errors/generation-aborted-error";
export { GroupDroppedError } from "./errors/group-dropped-error";
export { SessionNotFoundError } from "./errors/session-not-found-error";
// The generation gate: pause / resume for weight updates
export {
  type GateChange,
  type GateControl,
  type GateCounts,
  type GatePauseResult,
  type GateResumeResult,
  GenerationGate,
  type GenerationGateState,
} from "./gate/generation-gate";
// The HTTP app
export {
  type AgentApiEvents,
  type AgentApiOptions,
  type AgentApiSettings,
  createAgentApi,
} from "./http/create-agent-api";
export { createGatewayApp, type GatewayAppOptions } from "./http/create-gateway-app";
export { createTokenCounter } from "./http/create-token-counter";
export { type GatewayServer, listenGateway } from "./http/listen-gateway";
export { readBearerToken, tokensEqual } from "./http/tokens-equal";
// Request classes (main loop, sub-agent, compaction, title, summary, probe)
export {
  createRequestClassifier,
  DEFAULT_CLASS_POLICIES,
  detectHarness,
  parseRequestClassPolicies,
  REQUEST_CLASS_POLICIES,
  REQUEST_CLASSES,
  type RequestClass,
  type RequestClassifier,
  type RequestClassPolicy,
  requestClassConfigSchema,
} from "./request-class/classify-request";
// Sessions
export { GatewaySession } from "./session/gateway-session";
export { SessionRegistry } from "./session/session-registry";
export type { SessionSpec } from "./session/session-spec";
// Gateway shards (`--gateway-shards N`)
export { AUTO_SHARDS_MAX, autoShardCount, measuredAutoShardCount } from "./shard/auto-shard-count";
export { type GatewayShardSetup, runGatewayShard, type ShardInit } from "./shard/run-gateway-shard";
export { type ShardEntry, ShardPool, type ShardPoolOptions } from "./shard/shard-pool";
// One model turn, token in / token out
export {
  createTurnRunner,
  type RolloutSampling,
  type TurnEvent,
  type TurnRunnerOptions,
} from "./turn/create-turn-runner";
export { generateWithContinuation } from "./turn/generate-with-continuation";
