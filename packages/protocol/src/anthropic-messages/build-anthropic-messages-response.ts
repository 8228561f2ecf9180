import type { AssistantTurn, TurnUsage } from "@relax/chat";
import { assistantText, type ResponseContext } from "../shared/response-context";
import type {
  AnthropicMessagesContentBlock,
  AnthropicMessagesResponse,
  AnthropicMessagesUsage,
} from "./anthropic-messages-api";
import { mapAnthropicMessagesFinishReason } from "./map-anthropic-messages-finish-reason";

/**
 * Renders a generation result as an Anthropic Messages reply: a `thinking` block (with an opaque
 * `signature`, which Claude Code requires and sends back), a `text` block when there is text, and one
 * `tool_use` block per tool call (`input` is the parsed canonical arguments), then `stop_reason` and
 * `stop_sequence` (the matched stop string when the turn ended on one).
 *
 * @see https://docs.anthropic.com/en/api/messages#response-content
 * @throws SyntaxError when a tool call's arguments are not JSON (canonical turns always hold JSON
 *   objects; the handler reports it as an internal error).
 */
export function buildAnthropicMessagesResponse({
  turn,
  context,
}: {
  turn: AssistantTurn;
  context: ResponseContext;
}): AnthropicMessagesResponse {
  const content: AnthropicMessagesContentBlock[] = [];
  const reasoning = turn.message.reasoning_content;
  if (reasoning !== undefined && reasoning !== "") {
    content.push({ type: "thinking", thinking: reasoning, signature: context.createId("sig") });
  }
  const text = assistantText(turn.message);
  if (text !== "") content.push({ type: "text", text });
  const toolCalls = turn.message.tool_calls ?? [];
  for (const call of toolCalls) {
    content.push({
      type: "tool_use",
      id: call.id,
      name: call.function.name,
      input: JSON.parse(call.function.arguments) as Record<string, unknown>,
    });
  }
  const stopReason = mapAnthropicMessagesFinishReason({
    finishReason: turn.finishReason,
    hasToolCalls: toolCalls.length > 0,
    stopSequence: turn.stopSequence,
  });
  return {
    id: context.id,
    type: "message",
    role: "assistant",
    model: context.model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopReason === "stop_sequence" ? turn.stopSequence! : null,
    usage: toAnthropicUsage(turn.usage),
  };
}

/**
 * Canonical usage → Anthropic `usage`. With a known prefix-cache hit count, `input_tokens` is the
 * uncached part and `cache_read_input_tokens` the cached part (their sum is the prompt length).
 */
export function toAnthropicUsage(usage: TurnUsage): AnthropicMessagesUsage {
  if (usage.cachedTokens == null) {
    return { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens };
  }
  return {
    input_tokens: usage.promptTokens - usage.cachedTokens,
    output_tokens: usage.completionTokens,
    cache_read_input_tokens: usage.cachedTokens,
    cache_creation_input_tokens: 0,
  };
}
