/**
 * @module @relax/standin
 * An SGLang-compatible **stand-in engine** for tests and demos — not a model. It speaks SGLang's native
 * HTTP API byte for byte (`/generate` JSON and SSE, `/abort_request` with prefix match, health, model and
 * server info, pause / continue, weight-version updates, `/flush_cache`) and takes its output from a
 * pluggable policy.
 *
 * This file is the public contract; test helpers (`collectSse`, `readableStreamToArray`,
 * `computeStandinLogprobs`) are exported from `@relax/standin/testing`.
 */

export { constantPolicy } from "./policies/constant-policy";
export { echoPolicy } from "./policies/echo-policy";
export { type ScriptedPolicy, scriptedPolicy } from "./policies/scripted-policy";
export type { StandinPolicy, StandinPolicyOutput, StandinPolicyRequest } from "./policies/standin-policy";
export { createStandinEngine } from "./standin-engine";
export type { StandinCall, StandinEngine, StandinEngineOptions } from "./standin-engine-types";
export type { StandinFault, StandinFaultRule } from "./standin-faults";
export type { StandinRequestSnapshot } from "./standin-scheduler";
export { type StartedStandin, startStandin } from "./start-standin";
