import type { TurnFinishReason } from "@relax/chat";
import { assertNever } from "../shared/assert-never";
import type { AnthropicMessagesStopReason } from "./anthropic-messages-api";

/**
 * Canonical finish reason → Anthropic `stop_reason`: `stop` → `end_turn`, `length` → `max_tokens` (even
 * with tool calls), `tool_calls` → `tool_use` (a `stop` turn that parsed tool calls also reports
 * `tool_use`; a `tool_calls` turn without calls reports `end_turn`). `stop_sequence` is never reported:
 * the engine does not say which stop string matched.
 *
 * @see https://docs.anthropic.com/en/api/handling-stop-reasons
 */
export function mapAnthropicMessagesFinishReason({
  finishReason,
  hasToolCalls,
}: {
  finishReason: TurnFinishReason;
  hasToolCalls: boolean;
}): AnthropicMessagesStopReason {
  switch (finishReason) {
    case "length":
      return "max_tokens";
    case "stop":
    case "tool_calls":
      return hasToolCalls ? "tool_use" : "end_turn";
    default:
      return assertNever(finishReason);
  }
}
