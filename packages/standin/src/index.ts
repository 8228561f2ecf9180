/**
 * @module @relax/standin
 * An SGLang-compatible **stand-in engine** for tests and demos — not a model. It speaks SGLang's native
 * HTTP API byte for byte (`/generate` JSON and SSE, `/abort_request` with prefix match, health, model and
 * server info, pause / continue, weight-version updates, `/flush_cache`) and takes its output from a
 * pluggable policy. It enforces the constraints a request sends (`json_schema`, `structural_tag`): a policy
 * output they forbid is refused with a 400 naming the offending offset.
 *
 * This file is the public contract; test helpers (`collectSse`, `readableStreamToArray`,
 * `computeStandinLogprobs`), the fixed policies (`constantPolicy`, `echoPolicy`) and the types of what a
 * test inspects (recorded calls, injected faults, scheduled requests) are exported from
 * `@relax/standin/testing`.
 */

export { readAnswerSchema } from "./constraints/read-answer-schema";
export { scriptedPolicy } from "./policies/scripted-policy";
export type { StandinPolicy, StandinPolicyOutput } from "./policies/standin-policy";
export { createStandinEngine } from "./standin-engine";
export type { StandinEngine, StandinEngineOptions } from "./standin-engine-types";
export { type StartedStandin, startStandin } from "./start-standin";
