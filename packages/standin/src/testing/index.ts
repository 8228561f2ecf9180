/**
 * @module @relax/standin/testing
 * Test helpers for code that talks to the stand-in engine (or to SGLang): parse an SSE response the way
 * clients do (`collectSse`, with `eventsource-parser`), drain a stream (`readableStreamToArray`), and the
 * stand-in's deterministic logprobs (`computeStandinLogprobs`) to assert against, and the exact check of a
 * training row against the recorded engine exchanges (`expectRowMatchesEngine`).
 */
export { computeStandinLogprobs } from "../standin-logprobs";
export { collectSse, readableStreamToArray, type SseEvent } from "./collect-sse";
export {
  type EngineCheckedRow,
  type ExpectLike,
  expectRowMatchesEngine,
  type GenerateExchange,
} from "./expect-row-matches-engine";
