import { readFile } from "node:fs/promises";
import { TokenizerLoadError } from "../errors/tokenizer-load-error";

/**
 * Reads a text file; `undefined` when it is absent and `optional`.
 * @throws TokenizerLoadError `not_found` (required and absent) or `unreadable`.
 */
export async function readTokenizerFile(
  file: string,
  { optional }: { optional: boolean },
): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      if (optional) return undefined;
      throw new TokenizerLoadError({ file, reason: "not_found", cause: error });
    }
    throw new TokenizerLoadError({ file, reason: "unreadable", detail: code, cause: error });
  }
}

/**
 * Reads and parses a JSON file; `undefined` when it is absent and `optional`.
 * @throws TokenizerLoadError `not_found`, `unreadable` or `malformed_json` (with the parser's message).
 */
export async function readTokenizerJsonFile(
  file: string,
  { optional }: { optional: boolean },
): Promise<unknown> {
  const text = await readTokenizerFile(file, { optional });
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new TokenizerLoadError({
      file,
      reason: "malformed_json",
      detail: error instanceof Error ? error.message : undefined,
      cause: error,
    });
  }
}
