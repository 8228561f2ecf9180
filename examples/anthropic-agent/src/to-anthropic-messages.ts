import type Anthropic from "@anthropic-ai/sdk";

/** Anthropic request fields made from Chat-shaped session messages. */
export interface AnthropicConversation {
  /** System messages joined with a blank line, if any. */
  system: string | undefined;
  messages: Anthropic.MessageParam[];
}

/**
 * Turns the session input's Chat-shaped messages (what `RELAX_INPUT_JSON` holds: `system`, `developer`,
 * `user`, `assistant` with text content) into Anthropic's `system` + `messages`. Text parts of a content
 * list are kept as text blocks.
 * @throws Error naming the message index for a role or content this example does not handle (tool
 *   messages or tool calls in the dataset prompt).
 */
export function toAnthropicMessages(
  messages: ReadonlyArray<{ role: string; [key: string]: unknown }>,
): AnthropicConversation {
  const system: string[] = [];
  const out: Anthropic.MessageParam[] = [];
  messages.forEach((message, i) => {
    const text = contentText(message.content, i);
    if (message.role === "system" || message.role === "developer") system.push(text);
    else if (message.role === "user" || message.role === "assistant")
      out.push({ role: message.role, content: text });
    else throw new Error(`messages[${i}].role: "${message.role}" is not supported in a GSM8K prompt`);
  });
  return { system: system.length > 0 ? system.join("\n\n") : undefined, messages: out };
}

function contentText(content: unknown, index: number): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part: { type?: string; text?: string }, j) => {
        if (part.type !== "text" || typeof part.text !== "string") {
          throw new Error(`messages[${index}].content[${j}]: only text parts are supported`);
        }
        return part.text;
      })
      .join("");
  }
  throw new Error(`messages[${index}].content: must be a string or a list of text parts`);
}
