/** A content block of a scripted Anthropic message. */
export type ScriptedAnthropicBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** Options of {@link anthropicMessageSse}. */
export interface AnthropicMessageSseOptions {
  content: readonly ScriptedAnthropicBlock[];
  /** Defaults to `"tool_use"` when a block is a tool use, else `"end_turn"`. */
  stopReason?: "end_turn" | "tool_use" | "max_tokens" | "stop_sequence";
  id?: string;
  model?: string;
}

/**
 * The SSE byte stream of one Anthropic Messages response (`stream: true`): `message_start`, each content
 * block as start / one delta / stop, `message_delta` with the stop reason, `message_stop`.
 * @see https://docs.anthropic.com/en/api/messages-streaming
 */

export function anthropicMessageSse({
  content,
  stopReason,
  id = "msg_scripted",
  model = "model",
}: AnthropicMessageSseOptions): string {
  const events: Array<[string, unknown]> = [];
  events.push([
    "message_start",
    {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
  ]);
  content.forEach((block, index) => {
    if (block.type === "text") {
      events.push([
        "content_block_start",
        { type: "content_block_start", index, content_block: { type: "text", text: "" } },
      ]);
      events.push([
        "content_block_delta",
        { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } },
      ]);
    } else if (block.type === "thinking") {
      events.push([
        "content_block_start",
        {
          type: "content_block_start",
          index,
          content_block: { type: "thinking", thinking: "", signature: "" },
        },
      ]);
      events.push([
        "content_block_delta",
        { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: block.thinking } },
      ]);
      events.push([
        "content_block_delta",
        {
          type: "content_block_delta",
          index,
          delta: { type: "signature_delta", signature: block.signature },
        },
      ]);
    } else {
      events.push([
        "content_block_start",
        {
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        },
      ]);
      events.push([
        "content_block_delta",
        {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
        },
      ]);
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  const reason = stopReason ?? (content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn");
  events.push([
    "message_delta",
    {
      type: "message_delta",
      delta: { stop_reason: reason, stop_sequence: null },
      usage: { output_tokens: 5 },
    },
  ]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}
