/**
 * @module @relax/standin
 * An SGLang-compatible **stand-in engine** for tests and demos — not a model. It speaks SGLang's native
 * HTTP API byte for byte (`/generate` JSON and SSE, `/abort_request` with prefix match, health, model and
 * server info, pause / continue, weight-version updates, `/flush_cache`) and takes its output from a
 * pluggable policy. Also exports test helpers (`collectSse`, `readableStreamToArray`).
 */

export { BUILTIN_POLICIES, loadStandinPolicy } from "./load-standin-policy";
export { constantPolicy } from "./policies/constant-policy";
export { echoPolicy, lastMessageText } from "./policies/echo-policy";
export { type ScriptedPolicy, scriptedPolicy } from "./policies/scripted-policy";
export { PrefixCache } from "./prefix-cache";
export { CLI_USAGE, runStandinCli } from "./run-standin-cli";
export { createStandinEngine } from "./standin-engine";
export type { StandinCall, StandinEngine, StandinEngineOptions } from "./standin-engine-types";
export type { StandinFault, StandinFaultRule } from "./standin-faults";
export { formatSseData, SSE_HEADERS } from "./standin-http";
export { computeStandinLogprobs, StandinLogprobs } from "./standin-logprobs";
export type { StandinPolicy, StandinPolicyOutput, StandinPolicyRequest } from "./standin-policy";
export type { StandinRequestSnapshot } from "./standin-scheduler";
export { STANDIN_VERSION } from "./standin-version";
export { collectSse, readableStreamToArray, type SseEvent } from "./testing/collect-sse";
