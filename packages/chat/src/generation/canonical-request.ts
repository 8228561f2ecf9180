import type { ConversationState } from "../messages/function-tool";

/**
 * A model request after protocol normalisation (Chat Completions, Responses or Anthropic Messages all
 * project to this). Sampling parameters such as temperature come from the rollout configuration, not
 * from the agent; only the per-turn limits below are honoured.
 */
export interface CanonicalRequest extends ConversationState {
  /** Maximum new tokens for this turn (`max_completion_tokens` / `max_tokens` / `max_output_tokens`). */
  maxTokens?: number;
  /** Stop strings (`stop` / `stop_sequences`). */
  stop?: string[];
  /** Sampling seed (`seed`). */
  seed?: number;
  /** Whether the caller asked for per-token logprobs in its reply (Chat `logprobs: true`). */
  logprobs?: boolean;
  /** Whether the caller asked for a (buffered) SSE reply. */
  stream: boolean;
  /** The `model` field, echoed back only. */
  model?: string;
}
