import { ChatTemplateError } from "../errors/chat-template-error";
import type { ChatMessage, MessageContent } from "../messages/chat-message";
import type { TemplateContentFormat } from "./detect-content-format";

/**
 * How tool-call `function.arguments` reach the template:
 * - `object` (default): parsed from the canonical JSON string, as SGLang's `serving_chat` and the Python
 *   Relax do, so `arguments | tojson` renders `{"city": "北京"}` once instead of a doubly-encoded string;
 * - `string`: the JSON string as is, for templates that concatenate it (`'\n' + tool['function']['arguments']`,
 *   e.g. the original DeepSeek V3 template).
 */
export type ToolArgumentsMode = "object" | "string";

/** A message as the template sees it (HF `apply_chat_template` dict shape). */
export type TemplateMessage = Record<string, unknown>;

function templateContent(
  content: MessageContent,
  { role, format, path }: { role: string; format: TemplateContentFormat; path: string },
): unknown {
  if (typeof content === "string") return content;
  if (format === "openai") {
    // HF vision templates test `content['type'] == 'image'`; the URL travels under both common keys.
    return content.map((part) =>
      part.type === "text"
        ? { type: "text", text: part.text }
        : { type: "image", url: part.image_url.url, image_url: { url: part.image_url.url } },
    );
  }
  const imageIndex = content.findIndex((part) => part.type !== "text");
  if (imageIndex >= 0) {
    throw new ChatTemplateError({
      reason: "invalid_input",
      path: `${path}[${imageIndex}]`,
      message: "this chat template reads content as text only and cannot render an image part",
    });
  }
  // Same joining rule as canonicalisation: system parts with a blank line, others directly.
  return content.map((part) => (part as { text: string }).text).join(role === "system" ? "\n\n" : "");
}

function parseArguments(text: string, path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ChatTemplateError({
      reason: "invalid_input",
      path,
      message: `tool-call arguments are not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      cause: error,
    });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ChatTemplateError({
      reason: "invalid_input",
      path,
      message: "tool-call arguments must encode a JSON object",
    });
  }
  return value as Record<string, unknown>;
}

/**
 * The rendering copy of canonical messages handed to a chat template: keys `role`, `content`,
 * `reasoning_content`, `tool_calls`, `tool_call_id` as present (absent keys stay undefined, as in a
 * Python dict without them); tool-call arguments per {@link ToolArgumentsMode}; content per the
 * template's {@link TemplateContentFormat}. The input is not mutated.
 *
 * @throws ChatTemplateError `invalid_input` (with the field path) for arguments that are not a JSON
 *   object, or image parts for a text-only template.
 */
export function toTemplateMessages(
  messages: readonly ChatMessage[],
  { format, toolArguments }: { format: TemplateContentFormat; toolArguments: ToolArgumentsMode },
): TemplateMessage[] {
  return messages.map((message, i) => {
    const path = `messages[${i}]`;
    const out: TemplateMessage = {
      role: message.role,
      content: templateContent(message.content, { role: message.role, format, path: `${path}.content` }),
    };
    if (message.role === "assistant") {
      if (message.reasoning_content !== undefined) out.reasoning_content = message.reasoning_content;
      if (message.tool_calls !== undefined) {
        out.tool_calls = message.tool_calls.map((call, j) => ({
          id: call.id,
          type: call.type,
          function: {
            name: call.function.name,
            arguments:
              toolArguments === "string"
                ? call.function.arguments
                : parseArguments(call.function.arguments, `${path}.tool_calls[${j}].function.arguments`),
          },
        }));
      }
    }
    if (message.role === "tool" && message.tool_call_id !== undefined)
      out.tool_call_id = message.tool_call_id;
    return out;
  });
}
