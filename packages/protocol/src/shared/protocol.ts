import type { CanonicalRequest, ChatMessage } from "@relax/chat";
import type { ConversationHistory } from "./conversation-history";
import type { HarnessNormalizers } from "./harness-normalizers";
import type { ResponseFormatConstraint } from "./read-response-format";

/** The wire protocols Relax serves. Each has its own folder with the same set of files. */
export type Protocol = "chat-completions" | "responses" | "anthropic-messages";

/**
 * Something in a request that was accepted but does not change generation: a field that is ignored
 * (sampling parameters come from the rollout configuration), a non-function tool that was dropped, or a
 * content block that carries nothing the model sees.
 */
export interface ProtocolWarning {
  /**
   * `contract-change` marks a field the caller relies on for the *shape* of the reply that Relax does
   * not honour (`response_format`, `text.format`, `tool_choice` other than auto, `parallel_tool_calls:
   * false`): the agent's contract may silently break, so gateways log it at WARN.
   */
  type: "ignored-field" | "dropped-tool" | "dropped-content" | "contract-change";
  /** Field path in the protocol's terms, e.g. `temperature`, `tools[2]`, `messages[1].content[0]`. */
  path: string;
  message: string;
}

/** What every `convert-<protocol>-request` returns: the canonical request and the warnings it produced. */
export interface ConvertedRequest {
  request: CanonicalRequest;
  warnings: ProtocolWarning[];
  /**
   * What a later request may continue from this one (`previous_response_id`, Anthropic `thread`): the
   * canonical messages without the leading `instructions`/`system` (which are not carried over), and the
   * system text and tools to carry over to a thread continuation. Set by the Responses and Messages
   * converters.
   */
  continuation?: { messages: ChatMessage[]; system?: string };
  /** How the reply is written beyond the canonical turn (Responses `reasoning.summary`, echoed ids). */
  reply?: ReplyOptions;
  /** A structured-output format the request asked for (see {@link ResponseFormatConstraint}). */
  responseFormat?: ResponseFormatConstraint;
}

/** Reply options a converter derives from the request; see {@link ConvertedRequest.reply}. */
export interface ReplyOptions {
  /** Responses: write reasoning text to `summary` as well (`reasoning.summary` was set). */
  reasoningSummary?: boolean;
  /** Responses: echoed as the reply's `previous_response_id`. */
  previousResponseId?: string;
}

/** Options of every `convert-<protocol>-request`. */
export interface ConvertOptions {
  /** Harness normalisers to switch off or on; unset ones are on (see {@link HarnessNormalizers}). */
  normalizers?: Partial<HarnessNormalizers>;
  /**
   * This session's committed replies, for the fields that reference server-side state (Responses
   * `previous_response_id` and `item_reference`, Anthropic `thread`). Without it those fields are a 400.
   */
  history?: ConversationHistory;
}
