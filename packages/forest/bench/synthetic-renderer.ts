import type { ChatMessage, MessageContent, TokenRenderer } from "@relax/chat";

/** Text length of a message, as a template would render it. */
function messageLength(message: ChatMessage): number {
  const text = (content: MessageContent) =>
    typeof content === "string"
      ? content.length
      : content.reduce((n, part) => n + (part.type === "text" ? part.text.length : 256), 0);
  let length = 8 + text(message.content);
  if (message.role === "assistant") {
    length += message.reasoning_content?.length ?? 0;
    for (const call of message.tool_calls ?? []) length += 32 + call.function.arguments.length;
  }
  return length;
}

/**
 * A bench renderer: about one token per four characters, ids derived from the length, no real
 * tokenization. It isolates the forest's own cost from the tokenizer's. Not a template.
 */
export function createSyntheticRenderer(): TokenRenderer & { responseIds(message: ChatMessage): number[] } {
  const ids = (length: number, salt: number) =>
    Array.from({ length: Math.max(1, Math.ceil(length / 4)) }, (_, i) => (salt * 7919 + i * 31) % 150_000);
  const render = (messages: readonly ChatMessage[]) =>
    messages.flatMap((message, i) => ids(messageLength(message), i)).concat([151644, 77091, 198]);
  return {
    renderPrompt: (state) => render(state.messages),
    renderObservationDelta: ({ messages }) => [198, ...render(messages)],
    responseIds: (message) => [...ids(messageLength(message), 3), 151645],
  };
}
