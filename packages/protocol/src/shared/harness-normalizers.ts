import type { ChatMessage, ContentPart } from "@relax/chat";

/**
 * Harness normalisers: rewrites of what real agent harnesses send, applied to every request before the
 * forest matches it and the chat template renders it, so that an unmodified harness trains (see
 * docs/contract.md#harness-normalisers). Each one is on by default and can be switched off alone
 * (`relax rollout --disable-normalizer <name>`).
 */
export interface HarnessNormalizers {
  /**
   * Remove Claude Code's per-request `x-anthropic-billing-header: cc_version=…; cch=<nonce>;` line from
   * system text. Rendered, it changes every prompt (no prefix match, no engine prefix cache).
   * @default true
   */
  stripBillingHeader: boolean;
  /**
   * Accept `{"role": "system"}` (and `"developer"`) entries inside Anthropic `messages`, kept where they
   * stand (Claude Code's `mid-conversation-system` beta). Chat Completions always accepts them. When off,
   * such an entry is a 400 naming its `role`.
   * @default true
   */
  systemInMessages: boolean;
  /**
   * Merge a leading run of system/developer messages (`instructions` + two `developer` items from Codex,
   * an Anthropic `system` + a first system entry) into one system message, joined with `"\n\n"`, so the
   * template renders one system turn.
   * @default true
   */
  mergeLeadingSystem: boolean;
  /**
   * Read an echoed tool call whose `arguments` is `""` or whitespace (no-parameter tools) as `{}` instead
   * of a 400.
   * @default true
   */
  emptyToolArguments: boolean;
  /**
   * Let a tool call the model writes as `{"name": …, "parameters": {…}}` mean `arguments` (as SGLang's
   * JSON detectors do). Applied by the tool-call parser (`parametersAlias`), not to requests.
   * @default true
   */
  parametersAlias: boolean;
}

/** The normaliser names, in the order they are documented. */
export const HARNESS_NORMALIZER_NAMES = [
  "stripBillingHeader",
  "systemInMessages",
  "mergeLeadingSystem",
  "emptyToolArguments",
  "parametersAlias",
] as const satisfies readonly (keyof HarnessNormalizers)[];

/** A normaliser name. */
export type HarnessNormalizerName = (typeof HARNESS_NORMALIZER_NAMES)[number];

/** Every normaliser on. */
export const DEFAULT_HARNESS_NORMALIZERS: Readonly<HarnessNormalizers> = Object.freeze({
  stripBillingHeader: true,
  systemInMessages: true,
  mergeLeadingSystem: true,
  emptyToolArguments: true,
  parametersAlias: true,
});

/** The defaults with `overrides` applied (`undefined` keeps the default). */
export function resolveHarnessNormalizers(overrides: Partial<HarnessNormalizers> = {}): HarnessNormalizers {
  const resolved = { ...DEFAULT_HARNESS_NORMALIZERS };
  for (const name of HARNESS_NORMALIZER_NAMES) {
    const value = overrides[name];
    if (value !== undefined) resolved[name] = value;
  }
  return resolved;
}

/** `x-anthropic-billing-header: …` on a line of its own, with the blank lines after it. */
const BILLING_HEADER_LINE = /^x-anthropic-billing-header:[^\n]*(?:\n[ \t]*)*(?:\n|$)/gim;

/**
 * Removes every `x-anthropic-billing-header: …` line (and the blank lines after it) from a text.
 * `"x-anthropic-billing-header: cc_version=2.1.3.a1b; cch=9f;\n\nYou are Claude Code."` →
 * `"You are Claude Code."`.
 */
export function stripBillingHeader(text: string): string {
  if (!/x-anthropic-billing-header:/i.test(text)) return text;
  const stripped = text.replace(BILLING_HEADER_LINE, "");
  // A header that was the last line leaves the separator before it behind.
  return text.endsWith("\n") ? stripped : stripped.replace(/\n+$/, "");
}

/**
 * Applies the message-level normalisers to canonical messages, in order: `stripBillingHeader` on system
 * messages (one left empty is removed), then `mergeLeadingSystem`. Pure: returns a new list when anything
 * changed, else the same one.
 */
export function normalizeMessages(messages: ChatMessage[], normalizers: HarnessNormalizers): ChatMessage[] {
  let out = messages;
  if (normalizers.stripBillingHeader) out = stripBillingHeaders(out);
  if (normalizers.mergeLeadingSystem) out = mergeLeadingSystem(out);
  return out;
}

function stripBillingHeaders(messages: ChatMessage[]): ChatMessage[] {
  let changed = false;
  const out: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role !== "system") {
      out.push(message);
      continue;
    }
    const content = stripContent(message.content);
    if (content === message.content) {
      out.push(message);
      continue;
    }
    changed = true;
    if (content.length > 0) out.push({ role: "system", content });
  }
  return changed ? out : messages;
}

function stripContent(content: string | ContentPart[]): string | ContentPart[] {
  if (typeof content === "string") return stripBillingHeader(content);
  let changed = false;
  const parts: ContentPart[] = [];
  for (const part of content) {
    if (part.type !== "text") {
      parts.push(part);
      continue;
    }
    const text = stripBillingHeader(part.text);
    if (text !== part.text) changed = true;
    if (text !== "") parts.push({ type: "text", text });
  }
  return changed ? parts : content;
}

function mergeLeadingSystem(messages: ChatMessage[]): ChatMessage[] {
  let end = 0;
  while (end < messages.length) {
    const message = messages[end]!;
    if (message.role !== "system" || typeof message.content !== "string") break;
    end++;
  }
  if (end < 2) return messages;
  const texts = messages.slice(0, end).map((message) => message.content as string);
  return [{ role: "system", content: texts.join("\n\n") }, ...messages.slice(end)];
}
