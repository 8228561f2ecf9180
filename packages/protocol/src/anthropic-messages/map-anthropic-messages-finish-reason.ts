import type { TurnFinishReason } from "@relax/chat";
import { assertNever } from "../shared/assert-never";
import type { AnthropicMessagesStopReason } from "./anthropic-messages-api";

/**
 * Canonical finish reason → Anthropic `stop_reason`: `stop` → `end_turn`, `length` → `max_tokens` (even
 * with tool calls), `tool_calls` → `tool_use` (a `stop` turn that parsed tool calls also reports
 * `tool_use`; a `tool_calls` turn without calls reports `end_turn`); a `stop` turn without tool calls that
 * ended on one of the request's `stop_sequences` (`stopSequence`, from SGLang's `finish_reason.matched`)
 * reports `stop_sequence`.
 *
 * @see https://docs.anthropic.com/en/api/handling-stop-reasons
 */
export function mapAnthropicMessagesFinishReason({
  finishReason,
  hasToolCalls,
  stopSequence,
}: {
  finishReason: TurnFinishReason;
  hasToolCalls: boolean;
  /** The stop string that ended the turn, if one did. */
  stopSequence?: string | undefined;
}): AnthropicMessagesStopReason {
  switch (finishReason) {
    case "length":
      return "max_tokens";
    case "stop":
      if (hasToolCalls) return "tool_use";
      return stopSequence !== undefined ? "stop_sequence" : "end_turn";
    case "tool_calls":
      return hasToolCalls ? "tool_use" : "end_turn";
    default:
      return assertNever(finishReason);
  }
}
