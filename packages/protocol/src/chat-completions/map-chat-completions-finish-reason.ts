import type { TurnFinishReason } from "@relax/chat";
import { assertNever } from "../shared/assert-never";
import type { ChatCompletionsFinishReason } from "./chat-completions-api";

/**
 * Canonical finish reason → Chat Completions `finish_reason`. A turn cut by the length limit is
 * `length` even when it holds tool calls; `tool_calls` needs at least one call (a `stop` turn that
 * parsed calls reports `tool_calls`, a `tool_calls` turn without calls reports `stop`).
 *
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices
 */
export function mapChatCompletionsFinishReason({
  finishReason,
  hasToolCalls,
}: {
  finishReason: TurnFinishReason;
  hasToolCalls: boolean;
}): ChatCompletionsFinishReason {
  switch (finishReason) {
    case "length":
      return "length";
    case "stop":
    case "tool_calls":
      return hasToolCalls ? "tool_calls" : "stop";
    default:
      return assertNever(finishReason);
  }
}
