/**
 * @module @relax/standin/testing
 * Test helpers for code that talks to the stand-in engine (or to SGLang): parse an SSE response the way
 * clients do (`collectSse`, with `eventsource-parser`), drain a stream (`readableStreamToArray`), and the
 * stand-in's deterministic logprobs (`computeStandinLogprobs`) to assert against.
 */
export { computeStandinLogprobs } from "../standin-logprobs";
export { collectSse, readableStreamToArray, type SseEvent } from "./collect-sse";
