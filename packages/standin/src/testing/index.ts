/**
 * @module @relax/standin/testing
 * Test helpers for code that talks to the stand-in engine (or to SGLang): parse an SSE response the way
 * clients do (`collectSse`, with `eventsource-parser`), drain a stream (`readableStreamToArray`), and the
 * stand-in's deterministic logprobs (`computeStandinLogprobs`) to assert against, and the exact check of a
 * training row against the recorded engine exchanges (`expectRowMatchesEngine`); the fixed policies
 * (`constantPolicy`, `echoPolicy`) and the types a test reads or injects: the policy's request, a scripted
 * policy's queue, recorded calls, fault rules and scheduled requests.
 */
export { constantPolicy } from "../policies/constant-policy";
export { echoPolicy } from "../policies/echo-policy";
export type { ScriptedPolicy } from "../policies/scripted-policy";
export type { StandinPolicyRequest } from "../policies/standin-policy";
export type { StandinCall } from "../standin-engine-types";
export type { StandinFault, StandinFaultRule } from "../standin-faults";
export { computeStandinLogprobs } from "../standin-logprobs";
export type { StandinRequestSnapshot } from "../standin-scheduler";
export { collectSse, readableStreamToArray, type SseEvent } from "./collect-sse";
export {
  type EngineCheckedRow,
  type ExpectLike,
  expectRowMatchesEngine,
  type GenerateExchange,
} from "./expect-row-matches-engine";
