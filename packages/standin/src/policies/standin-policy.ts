import type { TextTokenizer } from "@relax/chat";
import type { SamplingParamsWire } from "@relax/sglang/internal";

/**
 * What the stand-in engine asks a policy for one `/generate` request. The policy decides the text (or
 * token ids) to emit; the engine then does what SGLang would: appends the stop token, honours
 * `max_new_tokens`, stop strings and stop token ids, and attaches deterministic logprobs. An output the
 * request's `json_schema` or `structural_tag` forbids is refused (400): a policy answering a structured
 * request reads the answer's schema with `readAnswerSchema(sampling)`.
 */
export interface StandinPolicyRequest {
  /** The request id (SGLang's `rid`). */
  readonly rid: string;
  /** Prompt token ids exactly as received. */
  readonly inputIds: readonly number[];
  /** The prompt decoded with special tokens kept (computed on first access). */
  readonly promptText: string;
  /** `sampling_params` as received, in wire spelling. */
  readonly sampling: SamplingParamsWire;
  /** The tokenizer the engine was created with. */
  readonly tokenizer: TextTokenizer;
  /** 0-based count of `/generate` requests the engine has started generating for. */
  readonly requestIndex: number;
  /** Request headers, lower-cased (e.g. `x-smg-routing-key`). */
  readonly headers: Readonly<Record<string, string>>;
  /** Aborted when the request is aborted (by `/abort_request`, a pause, a disconnect, or `close()`). */
  readonly signal: AbortSignal;
}

/**
 * The output of a policy: text (tokenised by the engine with its tokenizer, no special tokens added —
 * markers written in the text such as `<tool_call>` become their ids), or token ids used as given. A bare
 * string is the same as `{ text }`. The output is treated as complete: the engine appends the stop token
 * unless a stop token or stop string ends it earlier.
 */
export type StandinPolicyOutput = string | { text: string } | { tokenIds: readonly number[] };

/**
 * Decides what the stand-in engine "generates". A policy is test or demo logic, not a model.
 *
 * @example
 * const policy: StandinPolicy = ({ promptText }) => (promptText.includes("2+2") ? "4" : "I don't know.");
 */
export type StandinPolicy = (
  request: StandinPolicyRequest,
) => StandinPolicyOutput | Promise<StandinPolicyOutput>;
