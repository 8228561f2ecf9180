import type { StandinPolicy } from "./standin-policy";

const roleLine = /^(?:system|user|assistant|tool|developer|ipython)\s*\n/;
const bareRole = /^(?:system|user|assistant|tool|developer|ipython)$/;

/**
 * The text of the last message of a chat-template prompt: the prompt is split at special tokens; the
 * trailing generation header (e.g. `assistant\n` after `<|im_start|>`) is dropped; the last piece with
 * visible text that is not a bare role name is taken, without a leading role line. Works for ChatML (Qwen) and Llama-3 style prompts.
 */
export function lastMessageText(
  inputIds: readonly number[],
  specialTokenIds: ReadonlySet<number>,
  decode: (ids: number[]) => string,
): string {
  const pieces: number[][] = [[]];
  for (const id of inputIds) {
    if (specialTokenIds.has(id)) pieces.push([]);
    else pieces[pieces.length - 1]!.push(id);
  }
  // The piece after the last special token is the generation header (or empty).
  if (pieces.length > 1) pieces.pop();
  for (let index = pieces.length - 1; index >= 0; index--) {
    const text = decode(pieces[index]!).replace(roleLine, "").trim();
    // A piece that is only a role name is a header (Llama 3: <|start_header_id|>user<|end_header_id|>).
    if (text.length > 0 && !bareRole.test(text)) return text;
  }
  return "";
}

/**
 * Replies with the text of the last prompt message, prefixed by `prefix` — a deterministic policy for
 * demos and smoke tests.
 *
 * @example
 * echoPolicy({ prefix: "You said: " }) // "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n" → "You said: hi"
 */
export function echoPolicy({ prefix = "" }: { prefix?: string } = {}): StandinPolicy {
  return ({ inputIds, tokenizer }) =>
    prefix +
    lastMessageText(inputIds, tokenizer.specialTokenIds, (ids) =>
      tokenizer.decode(ids, { skipSpecialTokens: false }),
    );
}
