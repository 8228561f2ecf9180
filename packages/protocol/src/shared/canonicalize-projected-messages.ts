import { CanonicalizationError, type ChatMessage, canonicalizeMessages } from "@relax/chat";

/** A Chat-shaped message produced by a protocol converter, before canonicalisation. */
export interface ProjectedMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | ProjectedPart[] | null;
  reasoning_content?: string;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** A Chat-shaped content part. */
export type ProjectedPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

/** Where a projected message came from in the protocol's request, for error paths. */
export interface MessageOrigin {
  /** Path of the item or message that produced it, e.g. `input[4]` or `messages[2]`. */
  path: string;
  /** Path of the field that produced its content, e.g. `input[4].output`. */
  contentPath?: string | undefined;
  /** Paths of the items or blocks that produced each tool call. */
  toolCallPaths?: string[];
}

/**
 * Canonicalises messages that a converter projected from Responses items or Anthropic blocks. An error
 * raised by `canonicalizeMessages` names the projected message (`messages[3].content`); it is rethrown
 * with the path of the request field that produced it (`input[5].content`), so every 400 names what the
 * caller sent.
 *
 * @throws CanonicalizationError naming the protocol field path.
 */
export function canonicalizeProjectedMessages({
  messages,
  origins,
  emptyPath,
}: {
  messages: ProjectedMessage[];
  origins: MessageOrigin[];
  /** Path reported when nothing was projected (`input`, `messages`). */
  emptyPath: string;
}): ChatMessage[] {
  if (messages.length === 0) {
    throw new CanonicalizationError({ path: emptyPath, reason: "projected to zero supported messages" });
  }
  try {
    return canonicalizeMessages(messages, { path: "messages" });
  } catch (error) {
    if (!CanonicalizationError.isInstance(error)) throw error;
    throw new CanonicalizationError({
      path: remapPath(error.path, origins) ?? emptyPath,
      reason: error.reason,
      cause: error,
    });
  }
}

function remapPath(path: string, origins: MessageOrigin[]): string | undefined {
  const match = /^messages\[(\d+)\](.*)$/.exec(path);
  if (!match) return undefined;
  const origin = origins[Number(match[1])];
  if (!origin) return undefined;
  const rest = match[2] ?? "";
  if (rest.startsWith(".content")) return origin.contentPath ?? origin.path;
  const call = /^\.tool_calls\[(\d+)\]/.exec(rest);
  if (call) return origin.toolCallPaths?.[Number(call[1])] ?? origin.path;
  return origin.path;
}
