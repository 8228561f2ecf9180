/**
 * Why SGLang stopped generating.
 * - `stop`: an EOS / `stop_token_ids` id (`matched` is the id, and it is the last of `outputIds`) or a stop
 *   string (`matched` is the string; `outputIds` may run slightly past it). `matched` is absent when the
 *   server did not say.
 * - `length`: `max_new_tokens` reached (`length` is that budget as the server reported it).
 * - `abort`: aborted (by `/abort_request`, `/pause_generation`, a disconnect, or a scheduler error);
 *   `outputIds` holds whatever was generated before, possibly nothing.
 *
 * @see SGLang `schedule_batch.py` (`FINISH_MATCHED_TOKEN`, `FINISH_MATCHED_STR`, `FINISH_LENGTH`, `FINISH_ABORT`).
 */
export type FinishReason =
  | { type: "stop"; matched?: number | string }
  | { type: "length"; length: number }
  | { type: "abort"; message: string; statusCode?: number; errType?: string };

/** Output positions `[start, end)` produced under one weight version (newer SGLang builds only). */
export interface WeightVersionSpan {
  version: string;
  start: number;
  end: number;
}

/**
 * The result of one `/generate` call, token-exact: `outputIds` are the ids the engine sampled (the
 * matched EOS/stop token included), `outputLogprobs[i]` is the natural-log probability of `outputIds[i]`
 * under the rollout policy. Never re-tokenise text to rebuild them.
 */
export interface GenerateResult {
  /** The request id that was sent. */
  rid: string;
  outputIds: number[];
  /** Aligned 1:1 with `outputIds`; empty when `returnLogprob` was false. */
  outputLogprobs: number[];
  finishReason: FinishReason;
  /** Prompt tokens as the server counted them (`meta_info.prompt_tokens`; `inputIds.length` if absent). */
  promptTokens: number;
  /** `meta_info.completion_tokens`, or `outputIds.length` if absent. */
  completionTokens: number;
  /** Prompt tokens served from the prefix cache (`0` if the server did not report it). */
  cachedTokens: number;
  /** The server's weight label when the response was built. */
  weightVersion?: string;
  /** Which weight version produced which output positions (newer builds). */
  weightVersionSpans?: WeightVersionSpan[];
  /** Server-side end-to-end latency, in seconds. */
  e2eLatencySeconds?: number;
  /** Client-measured wall time of the call, in milliseconds (request start to parsed result). */
  latencyMs: number;
  /** Base URL the request was sent to (a worker, or the router). */
  url: string;
}
