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

/**
 * The hashed form of a message: exactly `stableStringify(message)` (sorted keys, compact, non-ASCII kept),
 * written directly for the canonical message shape (string fields in the known key order) and delegated to
 * `stableStringify` for anything else (content parts, unknown keys, nulls). About twice as fast as the
 * generic walk, which matters because hashing is the part of a turn that grows with the request. Content
 * part lists are hashed with each image part as `{type: "image_url", image: <identity>}`, so images count
 * by content digest, not by URL spelling.
 */
export function serializeMessage(message: ChatMessage): string {
  if (Array.isArray(message.content)) return stableStringify(withImageIdentities(message));
  const record = message as unknown as Record<string, unknown>;
  for (const key in record) {
    if (!MESSAGE_KEYS.has(key)) return stableStringify(message);
  }
  const {
    role,
    content,
    reasoning_content: reasoning,
    tool_call_id: toolCallId,
    tool_calls: toolCalls,
  } = record;
  if (!isString(role) || !isString(content)) return stableStringify(message);
  if (reasoning !== undefined && !isString(reasoning)) return stableStringify(message);
  if (toolCallId !== undefined && !isString(toolCallId)) return stableStringify(message);
  let calls: string | undefined;
  if (toolCalls !== undefined) {
    calls = plainToolCalls(toolCalls);
    if (calls === undefined) return stableStringify(message);
  }
  let out = `{"content":${JSON.stringify(content)}`;
  if (reasoning !== undefined) out += `,"reasoning_content":${JSON.stringify(reasoning)}`;
  out += `,"role":${JSON.stringify(role)}`;
  if (toolCallId !== undefined) out += `,"tool_call_id":${JSON.stringify(toolCallId)}`;
  if (calls !== undefined) out += `,"tool_calls":${calls}`;
  return `${out}}`;
}
