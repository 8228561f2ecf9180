import { z } from "zod";

/**
 * A special-token value in `tokenizer_config.json`: a string, `null`, or a serialised `AddedToken`
 * (`{ "__type": "AddedToken", "content": "<｜begin▁of▁sentence｜>", … }`, as DeepSeek ships it).
 */
export const specialTokenValueSchema = z.union([
  z.string(),
  z.null(),
  z.looseObject({ content: z.string() }),
]);

/** A named chat template entry (`tokenizer_config.json` may hold a list of them, e.g. `default`, `tool_use`). */
export const namedChatTemplateSchema = z.looseObject({ name: z.string(), template: z.string() });

/**
 * The fields of `tokenizer_config.json` Relax reads; every other key is kept and handed to
 * `@huggingface/tokenizers` untouched.
 * @see https://huggingface.co/docs/transformers/main_classes/tokenizer
 */
export const tokenizerConfigSchema = z.looseObject({
  bos_token: specialTokenValueSchema.optional(),
  eos_token: specialTokenValueSchema.optional(),
  pad_token: specialTokenValueSchema.optional(),
  unk_token: specialTokenValueSchema.optional(),
  chat_template: z.union([z.string(), z.array(namedChatTemplateSchema)]).nullish(),
  clean_up_tokenization_spaces: z.boolean().nullish(),
  clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output: z.boolean().nullish(),
});
/** A parsed `tokenizer_config.json`. */
export type TokenizerConfig = z.infer<typeof tokenizerConfigSchema>;

/**
 * The fields of `tokenizer.json` Relax checks before handing it to `@huggingface/tokenizers`: a `model`
 * object and an `added_tokens` list (the library requires both).
 */
export const tokenizerJsonSchema = z.looseObject({
  model: z.looseObject({ type: z.string().optional() }),
  added_tokens: z.array(z.looseObject({ id: z.number().int(), content: z.string() })),
});
/** A parsed `tokenizer.json` (the Hugging Face `tokenizers` serialisation). */
export type TokenizerJson = z.infer<typeof tokenizerJsonSchema>;

/** The field of `generation_config.json` Relax reads: `eos_token_id`, one id or a list. */
export const generationConfigSchema = z.looseObject({
  eos_token_id: z.union([z.number().int(), z.array(z.number().int())]).nullish(),
});
/** A parsed `generation_config.json`. */
export type GenerationConfig = z.infer<typeof generationConfigSchema>;

/** `chat_template.json` (older processor layout): `{ "chat_template": "…" }`. */
export const chatTemplateJsonSchema = z.looseObject({ chat_template: z.string() });

/** The text of a special-token value (`"<|im_end|>"`, or an `AddedToken` object's `content`). */
export function specialTokenContent(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (
    value !== null &&
    typeof value === "object" &&
    typeof (value as { content?: unknown }).content === "string"
  ) {
    return (value as { content: string }).content;
  }
  return undefined;
}
