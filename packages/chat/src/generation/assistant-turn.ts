import type { AssistantMessage } from "../messages/chat-message";

/**
 * Why a turn ended, in the canonical (OpenAI Chat) vocabulary. `tool_calls` is reported only when the
 * turn stopped normally and parsed into at least one tool call; a turn cut by the length limit is
 * always `length`, never `tool_calls`.
 */
export type TurnFinishReason = "stop" | "length" | "tool_calls";

/** Token accounting for one turn, in tokens. */
export interface TurnUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens served from the engine's prefix cache, when the engine reports it. */
  cachedTokens?: number;
}

/** One generated token with its rollout logprob (natural log), for protocol `logprobs` replies. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  /** UTF-8 bytes of `token`. */
  bytes: number[];
}

/**
 * A problem found while parsing generated text into an assistant message. The raw text of the
 * affected call is kept in `content`; nothing disappears silently.
 */
export interface ParseIssue {
  kind: "malformed_tool_call" | "truncated_tool_call" | "unknown_tool" | "truncated_reasoning";
  /** Index of the call among the calls found in the text, when it applies. */
  callIndex?: number;
  message: string;
  /** The raw text that could not be parsed. */
  raw?: string;
}

/**
 * The result of one generation turn as the protocol layer renders it: the parsed assistant message
 * (canonical), the finish reason, usage and optional logprobs.
 */
export interface AssistantTurn {
  message: AssistantMessage;
  finishReason: TurnFinishReason;
  usage: TurnUsage;
  logprobs?: TokenLogprob[];
  issues?: ParseIssue[];
  /**
   * The request's stop string that ended the turn (SGLang's `meta_info.finish_reason.matched` when it is a
   * string), only for a `stop` turn; absent when the turn ended on EOS / a stop token id or the length.
   * The protocols that can say so report it (Anthropic `stop_reason: "stop_sequence"`).
   */
  stopSequence?: string;
}
