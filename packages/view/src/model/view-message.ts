import type { ViewMessage } from "./view-model";

/**
 * A canonical chat message (the `@relax/chat` shape: `role`, `content` string or parts, `reasoning_content`,
 * `tool_calls`, `tool_call_id`) as the page shows it.
 */
export function viewMessage(raw: Record<string, unknown>): ViewMessage {
  const message: ViewMessage = { role: String(raw.role), text: contentText(raw.content) };
  if (typeof raw.reasoning_content === "string" && raw.reasoning_content !== "")
    message.reasoning = raw.reasoning_content;
  if (Array.isArray(raw.tool_calls) && raw.tool_calls.length > 0) {
    message.toolCalls = raw.tool_calls.map((call) => {
      const fn = (call as { function?: { name?: unknown; arguments?: unknown } }).function ?? {};
      return `${String(fn.name)}(${typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments)})`;
    });
  }
  if (typeof raw.tool_call_id === "string") message.toolCallId = raw.tool_call_id;
  return message;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content == null ? "" : JSON.stringify(content);
  return content
    .map((part: { type?: string; text?: string }) =>
      part.type === "text" ? (part.text ?? "") : `[${part.type}]`,
    )
    .join("");
}
