/** A tool call in a scripted Chat Completions reply. */
export interface ScriptedToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments, as the API returns it. */
  arguments: string;
}

/**
 * A Chat Completions response body (`object: "chat.completion"`) with one choice.
 * `finishReason` defaults to `"tool_calls"` when there are tool calls, else `"stop"`.
 * @see https://platform.openai.com/docs/api-reference/chat/object
 */
export function chatCompletion({
  content = null,
  reasoningContent,
  toolCalls = [],
  finishReason,
  id = "chatcmpl-scripted",
  model = "model",
}: {
  content?: string | null;
  reasoningContent?: string;
  toolCalls?: readonly ScriptedToolCall[];
  finishReason?: string;
  id?: string;
  model?: string;
}): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content };
  if (reasoningContent !== undefined) message.reasoning_content = reasoningContent;
  if (toolCalls.length > 0) {
    message.tool_calls = toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id,
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}
