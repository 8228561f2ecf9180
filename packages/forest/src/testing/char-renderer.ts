import type {
  AssistantMessage,
  ChatMessage,
  ChatTemplateKwargs,
  ConversationState,
  FunctionTool,
  MessageContent,
  TokenRenderer,
} from "@relax/chat";
import { stableStringify } from "@relax/chat/internal";

/** Token id of `<|im_start|>` in the character renderer (outside the Unicode range). */
export const CHAR_IM_START = 0x110000;
/** Token id of `<|im_end|>` in the character renderer; it ends every generated response. */
export const CHAR_IM_END = 0x110001;

/**
 * A readable {@link TokenRenderer} for tests: one token per Unicode code point (id = code point) plus two
 * special tokens, and a ChatML-like template that is prefix-stable (no history re-rendering):
 *
 * ```text
 * <|im_start|>tools\n{tool JSON per line}<|im_end|>\n          (when there are tools)
 * <|im_start|>kwargs\n{stable JSON}<|im_end|>\n                (when kwargs are non-empty)
 * <|im_start|>{role}\n{body}<|im_end|>\n                       (per message)
 * <|im_start|>assistant\n                                      (generation prompt)
 * ```
 *
 * An assistant body is `<think>{reasoning}</think>` (when present) + content + `<tool_call>{name}
 * {arguments}</tool_call>` per call. A generated response is its body followed by `<|im_end|>`
 * (`renderResponse`); the observation delta after it starts with the `\n` the model did not generate.
 * Not a model template: use real tokenizers (`createChatRenderer`) for fidelity tests.
 */
export interface CharRenderer extends TokenRenderer {
  /** Code points of `text`. */
  encode(text: string): number[];
  /** Text of ids, special tokens written as `<|im_start|>` / `<|im_end|>`. */
  decode(ids: ArrayLike<number>): string;
  /** What a model would generate for `message`: its body then `<|im_end|>`. */
  renderResponse(message: AssistantMessage): number[];
  /**
   * The whole state rendered at once: with the generation prompt, or (`addGenerationPrompt: false`)
   * without the `\n` after the last message, like the state a committed response ends in.
   */
  renderState(state: ConversationState, options: { addGenerationPrompt: boolean }): number[];
}

function contentText(content: MessageContent | null | undefined): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "<image>")).join("");
}

function body(message: ChatMessage): string {
  if (message.role !== "assistant") return contentText(message.content);
  let text = message.reasoning_content ? `<think>${message.reasoning_content}</think>` : "";
  text += contentText(message.content);
  for (const call of message.tool_calls ?? []) {
    text += `<tool_call>${call.function.name} ${call.function.arguments}</tool_call>`;
  }
  return text;
}

/** Creates a {@link CharRenderer}. */
export function createCharRenderer(): CharRenderer {
  const encode = (text: string): number[] => Array.from(text, (char) => char.codePointAt(0)!);
  const block = (role: string, text: string): number[] => [
    CHAR_IM_START,
    ...encode(`${role}\n${text}`),
    CHAR_IM_END,
    ...encode("\n"),
  ];
  const generationPrompt = (): number[] => [CHAR_IM_START, ...encode("assistant\n")];
  const messagesIds = (messages: readonly ChatMessage[]): number[] =>
    messages.flatMap((message) => block(message.role, body(message)));
  const header = (tools: readonly FunctionTool[], kwargs: ChatTemplateKwargs): number[] => [
    ...(tools.length > 0 ? block("tools", tools.map((tool) => stableStringify(tool)).join("\n")) : []),
    ...(Object.keys(kwargs).length > 0 ? block("kwargs", stableStringify(kwargs)) : []),
  ];
  return {
    encode,
    decode(ids) {
      let text = "";
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        text +=
          id === CHAR_IM_START
            ? "<|im_start|>"
            : id === CHAR_IM_END
              ? "<|im_end|>"
              : String.fromCodePoint(id);
      }
      return text;
    },
    renderResponse(message) {
      return [...encode(body(message)), CHAR_IM_END];
    },
    renderPrompt(state) {
      return [
        ...header(state.tools, state.chatTemplateKwargs),
        ...messagesIds(state.messages),
        ...generationPrompt(),
      ];
    },
    renderObservationDelta({ messages, previousResponseIds }) {
      const last = previousResponseIds?.[previousResponseIds.length - 1];
      const close = last === CHAR_IM_END ? encode("\n") : [CHAR_IM_END, ...encode("\n")];
      return [...close, ...messagesIds(messages), ...generationPrompt()];
    },
    renderState(state, { addGenerationPrompt }) {
      const ids = [...header(state.tools, state.chatTemplateKwargs), ...messagesIds(state.messages)];
      if (addGenerationPrompt) return [...ids, ...generationPrompt()];
      return ids.slice(0, -1);
    },
  };
}
