import type { z } from "zod";
import { formatFieldPath } from "../errors/format-field-path";
import { TokenizerLoadError } from "../errors/tokenizer-load-error";
import { HfTokenizer } from "./hf-tokenizer";
import { generationConfigSchema, tokenizerConfigSchema, tokenizerJsonSchema } from "./tokenizer-files";

/** Input of {@link createTokenizer}: the already-parsed files of a Hugging Face tokenizer. */
export interface CreateTokenizerOptions {
  /** Parsed `tokenizer.json`. */
  tokenizerJson: unknown;
  /** Parsed `tokenizer_config.json`. */
  tokenizerConfig: unknown;
  /** A chat template overriding the config's (e.g. the text of `chat_template.jinja`), or named ones. */
  chatTemplate?: string | Readonly<Record<string, string>> | undefined;
  /** Parsed `generation_config.json`, for its `eos_token_id`(s). */
  generationConfig?: unknown;
  /**
   * File names used in errors, e.g. `{ tokenizerJson: "/m/tokenizer.json" }`.
   * @default the bare file names
   */
  fileNames?: { tokenizerJson?: string; tokenizerConfig?: string; generationConfig?: string };
  /** Where the files came from, for messages. */
  source?: string;
}

/**
 * Builds an {@link HfTokenizer} synchronously from parsed JSON (for callers that already hold the
 * files, e.g. from a bundle). Shapes are checked with zod first.
 *
 * @throws TokenizerLoadError (`reason: "invalid"`, `file` naming the file) when a file has the wrong
 *   shape or `@huggingface/tokenizers` rejects it.
 * @example
 * ```ts
 * const tokenizer = createTokenizer({ tokenizerJson, tokenizerConfig });
 * tokenizer.encode("Hello world"); // [9707, 1879] for Qwen3
 * ```
 */
export function createTokenizer({
  tokenizerJson,
  tokenizerConfig,
  chatTemplate,
  generationConfig,
  fileNames = {},
  source,
}: CreateTokenizerOptions): HfTokenizer {
  const tokenizerFile = fileNames.tokenizerJson ?? "tokenizer.json";
  const json = check(tokenizerJsonSchema, tokenizerJson, tokenizerFile);
  const config = check(
    tokenizerConfigSchema,
    tokenizerConfig,
    fileNames.tokenizerConfig ?? "tokenizer_config.json",
  );
  const generation =
    generationConfig === undefined
      ? undefined
      : check(
          generationConfigSchema,
          generationConfig,
          fileNames.generationConfig ?? "generation_config.json",
        );
  const eos = generation?.eos_token_id;
  try {
    return new HfTokenizer({
      tokenizerJson: json,
      tokenizerConfig: config,
      chatTemplate,
      generationEosTokenIds: eos == null ? [] : Array.isArray(eos) ? eos : [eos],
      source,
    });
  } catch (error) {
    throw new TokenizerLoadError({
      file: tokenizerFile,
      reason: "invalid",
      detail: error instanceof Error ? error.message : String(error),
      cause: error,
    });
  }
}

function check<T extends z.ZodType>(schema: T, value: unknown, file: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = (issue && formatFieldPath(issue.path)) || "(root)";
  throw new TokenizerLoadError({
    file,
    reason: "invalid",
    detail: `${where}: ${issue?.message ?? "wrong shape"}`,
    cause: result.error,
  });
}
