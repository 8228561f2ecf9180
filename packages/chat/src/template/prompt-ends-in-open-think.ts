import type { TextTokenizer } from "../tokenizer/text-tokenizer";

/** The reasoning markers to look for. @default `<think>` / `</think>` (Qwen3, DeepSeek-R1, GLM, Kimi). */
export interface ThinkTags {
  open: string;
  close: string;
}

/** Qwen3-style reasoning markers. */
export const DEFAULT_THINK_TAGS: ThinkTags = { open: "<think>", close: "</think>" };

/**
 * True when a rendered prompt ends inside an open reasoning block: its last `<think>` comes after its last
 * `</think>` (e.g. a thinking-only template's generation prompt `<|im_start|>assistant\n<think>\n`).
 * The model's output then starts in reasoning without an opening tag, which is what SGLang's
 * "force reasoning" mode of the reasoning parsers handles.
 *
 * @param prompt - the rendered prompt text, or its token ids (then `tokenizer` is required).
 * @param options.tokenizer - used for ids: single-token tags are found by id scanning back from the end;
 *   otherwise the ids are decoded (special tokens kept).
 */
export function promptEndsInOpenThink(
  prompt: string | ArrayLike<number>,
  { tokenizer, tags = DEFAULT_THINK_TAGS }: { tokenizer?: TextTokenizer; tags?: ThinkTags } = {},
): boolean {
  if (typeof prompt === "string") return prompt.lastIndexOf(tags.open) > prompt.lastIndexOf(tags.close);
  if (tokenizer === undefined) {
    throw new TypeError("promptEndsInOpenThink: a tokenizer is required to inspect token ids");
  }
  const openIds = tokenizer.encode(tags.open);
  const closeIds = tokenizer.encode(tags.close);
  if (openIds.length === 1 && closeIds.length === 1) {
    for (let i = prompt.length - 1; i >= 0; i--) {
      if (prompt[i] === openIds[0]) return true;
      if (prompt[i] === closeIds[0]) return false;
    }
    return false;
  }
  return promptEndsInOpenThink(tokenizer.decode(prompt), { tags });
}
