import { type ChatMessage, imageIdentity } from "@relax/chat";
import { stableStringify } from "@relax/chat/internal";

const MESSAGE_KEYS = new Set(["role", "content", "reasoning_content", "tool_calls", "tool_call_id"]);

const isString = (value: unknown): value is string => typeof value === "string";

function plainToolCalls(calls: unknown): string | undefined {
  if (!Array.isArray(calls)) return undefined;
  let out = "[";
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as Record<string, unknown> | null;
    if (call === null || typeof call !== "object" || Object.keys(call).length !== 3) return undefined;
    const fn = call.function as Record<string, unknown> | null;
    if (call.type !== "function" || !isString(call.id) || fn === null || typeof fn !== "object")
      return undefined;
    if (Object.keys(fn).length !== 2 || !isString(fn.arguments) || !isString(fn.name)) return undefined;
    if (i > 0) out += ",";
    out += `{"function":{"arguments":${JSON.stringify(fn.arguments)},"name":${JSON.stringify(fn.name)}},"id":${JSON.stringify(call.id)},"type":"function"}`;
  }
  return `${out}]`;
}

/**
 * The message with each image part's URL replaced by its identity (`imageIdentity`: the content digest
 * of a `data:` URI's bytes, else the URL), so the same image hashes alike whichever protocol or base64
 * spelling carried it.
 */
function withImageIdentities(message: ChatMessage): unknown {
  const content = (message.content as readonly { type: string; image_url?: { url: string } }[]).map((part) =>
    part.type === "image_url" && part.image_url !== undefined
      ? { type: "image_url", image: imageIdentity(part.image_url.url) }
      : part,
  );
  return { ...message, content };
}

/** The fields of a message in the canonical shape (string fields only, known keys), else `undefined`. */
interface PlainMessage {
  role: string;
  content: string;
  reasoning: string | undefined;
  toolCallId: string | undefined;
  /** The serialised `tool_calls`, when present. */
  calls: string | undefined;
}

function plainMessage(message: ChatMessage): PlainMessage | undefined {
  if (Array.isArray(message.content)) return undefined;
  const record = message as unknown as Record<string, unknown>;
  for (const key in record) {
    if (!MESSAGE_KEYS.has(key)) return undefined;
  }
  const {
    role,
    content,
    reasoning_content: reasoning,
    tool_call_id: toolCallId,
    tool_calls: toolCalls,
  } = record;
  if (!isString(role) || !isString(content)) return undefined;
  if (reasoning !== undefined && !isString(reasoning)) return undefined;
  if (toolCallId !== undefined && !isString(toolCallId)) return undefined;
  let calls: string | undefined;
  if (toolCalls !== undefined) {
    calls = plainToolCalls(toolCalls);
    if (calls === undefined) return undefined;
  }
  return { role, content, reasoning, toolCallId, calls };
}

/** The generic form of a message that is not in the canonical shape. */
function genericForm(message: ChatMessage): string {
  return stableStringify(Array.isArray(message.content) ? withImageIdentities(message) : message);
}

/**
 * The hashed form of a message: exactly `stableStringify(message)` (sorted keys, compact, non-ASCII kept),
 * written directly for the canonical message shape (string fields in the known key order) and delegated to
 * `stableStringify` for anything else (content parts, unknown keys, nulls). About twice as fast as the
 * generic walk, which matters because hashing is the part of a turn that grows with the request. Content
 * part lists are hashed with each image part as `{type: "image_url", image: <identity>}`, so images count
 * by content digest, not by URL spelling.
 */
export function serializeMessage(message: ChatMessage): string {
  const plain = plainMessage(message);
  if (plain === undefined) return genericForm(message);
  let out = `{"content":${JSON.stringify(plain.content)}`;
  if (plain.reasoning !== undefined) out += `,"reasoning_content":${JSON.stringify(plain.reasoning)}`;
  out += `,"role":${JSON.stringify(plain.role)}`;
  if (plain.toolCallId !== undefined) out += `,"tool_call_id":${JSON.stringify(plain.toolCallId)}`;
  if (plain.calls !== undefined) out += `,"tool_calls":${plain.calls}`;
  return `${out}}`;
}

/** What {@link updateWithMessage} writes to: a `node:crypto` `Hash` (UTF-8 for strings). */
interface HashSink {
  update(data: string): unknown;
}

/**
 * Feeds exactly the UTF-8 bytes of {@link serializeMessage}`(message)` into `hash`, without building that
 * string: a long string field that JSON would not escape is fed as it is, between its quotes, instead of
 * being copied by `JSON.stringify` and again by the concatenation (a 128k-token first message hashes in
 * about half the time). The cut points are ASCII quotes, so the UTF-8 of the pieces is the UTF-8 of the
 * whole.
 */
export function updateWithMessage(hash: HashSink, message: ChatMessage): void {
  const plain = plainMessage(message);
  if (plain === undefined) {
    hash.update(genericForm(message));
    return;
  }
  hash.update('{"content":');
  updateWithJsonString(hash, plain.content);
  if (plain.reasoning !== undefined) {
    hash.update(',"reasoning_content":');
    updateWithJsonString(hash, plain.reasoning);
  }
  let tail = `,"role":${JSON.stringify(plain.role)}`;
  if (plain.toolCallId !== undefined) tail += `,"tool_call_id":${JSON.stringify(plain.toolCallId)}`;
  if (plain.calls !== undefined) tail += `,"tool_calls":${plain.calls}`;
  hash.update(`${tail}}`);
}

/** Strings shorter than this are stringified (one small copy costs less than three `update` calls). */
const RAW_STRING_MIN_CHARS = 4_096;

/**
 * A code unit `JSON.stringify` escapes (`"`, `\`, U+0000–U+001F, and a lone surrogate; any surrogate
 * is taken here, so a paired one only costs the stringified path).
 */
const ESCAPED_IN_JSON = /["\\\u0000-\u001f\ud800-\udfff]/;

function updateWithJsonString(hash: HashSink, value: string): void {
  if (value.length < RAW_STRING_MIN_CHARS || ESCAPED_IN_JSON.test(value)) hash.update(JSON.stringify(value));
  else {
    hash.update('"');
    hash.update(value);
    hash.update('"');
  }
}
