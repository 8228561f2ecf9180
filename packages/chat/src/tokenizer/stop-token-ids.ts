/**
 * Token strings known to end generation in common chat formats. A token from this list counts as a stop
 * token only when the tokenizer has it as a special added token. Follows the `eos_token_id` lists the
 * models ship in `generation_config.json` (Qwen: `<|im_end|>`, `<|endoftext|>`; Llama 3.x:
 * `<|eot_id|>`, `<|eom_id|>`, `<|end_of_text|>`; gpt-oss: `<|return|>`, `<|call|>`, `<|endoftext|>`;
 * DeepSeek: `<｜end▁of▁sentence｜>`; Gemma: `<end_of_turn>`), so a directory without that file still
 * stops where the model does. gpt-oss `<|end|>` is deliberately absent: it ends a message, not the turn.
 */
export const KNOWN_STOP_TOKENS: readonly string[] = [
  "<|im_end|>",
  "<|endoftext|>",
  "<|eot_id|>",
  "<|eom_id|>",
  "<|end_of_text|>",
  "<|return|>",
  "<|call|>",
  "<｜end▁of▁sentence｜>",
  "<end_of_turn>",
];

/**
 * The ids that end generation, in order and without duplicates: the configured EOS token, then
 * `generation_config.json`'s `eos_token_id`(s), then every {@link KNOWN_STOP_TOKENS} entry the tokenizer
 * has as a special token.
 */
export function collectStopTokenIds({
  eosTokenId,
  generationEosIds,
  specialTokenIds,
  tokenToId,
}: {
  eosTokenId: number | undefined;
  generationEosIds: readonly number[];
  specialTokenIds: ReadonlySet<number>;
  tokenToId: (token: string) => number | undefined;
}): number[] {
  const ids: number[] = [];
  const add = (id: number | undefined) => {
    if (id !== undefined && !ids.includes(id)) ids.push(id);
  };
  add(eosTokenId);
  generationEosIds.forEach(add);
  for (const token of KNOWN_STOP_TOKENS) {
    const id = tokenToId(token);
    if (id !== undefined && specialTokenIds.has(id)) add(id);
  }
  return ids;
}
