import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A minimal valid `tokenizer.json` (WordLevel, whitespace pre-tokenizer, three added tokens) for tests
 * about file handling, where loading a real 11 MB tokenizer would only cost time.
 */
export const tinyTokenizerJson = {
  version: "1.0",
  model: { type: "WordLevel", vocab: { "[UNK]": 0, hello: 1, world: 2 }, unk_token: "[UNK]" },
  added_tokens: [
    {
      id: 3,
      content: "<eos>",
      special: true,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
    },
    {
      id: 4,
      content: "<turn>",
      special: true,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
    },
    {
      id: 5,
      content: "<think>",
      special: false,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
    },
  ],
  normalizer: null,
  pre_tokenizer: { type: "Whitespace" },
  post_processor: null,
  decoder: null,
};

/** Writes a tokenizer directory holding the given files (`string` values are written verbatim). */
export function writeTokenizerDir(files: Record<string, unknown>): string {
  const directory = realpathSync(mkdtempSync(join(tmpdir(), "relax-chat-tokenizer-")));
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(directory, name), typeof content === "string" ? content : JSON.stringify(content));
  }
  return directory;
}
