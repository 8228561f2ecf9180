import type { ChatMessage, ChatTemplateKwargs, FunctionTool } from "@relax/chat";

/**
 * A committed reply a later request of the same session may continue: the conversation it ended (the
 * request's messages without the leading `instructions`/`system`, then the assistant reply), the system
 * text and tools of its request (carried over by an Anthropic thread continuation).
 */
export interface StoredReply {
  /** The reply id (`resp_…`, `msg_…`). */
  id: string;
  messages: ChatMessage[];
  system?: string;
  tools: FunctionTool[];
  /** The request's canonical template kwargs (an Anthropic thread continuation without `thinking` keeps them). */
  chatTemplateKwargs?: ChatTemplateKwargs;
}

/**
 * One session's committed replies, by id, plus the Responses output items they contained (`rs_…`,
 * `msg_…`, `fc_…`) for `item_reference`. The protocol handler records each reply it sends after its turn
 * committed; the converters resolve `previous_response_id`, `item_reference` and Anthropic
 * `thread.previous_message_id` against it.
 */
export interface ConversationHistory {
  reply(id: string): StoredReply | undefined;
  /** A Responses output item, as sent (`{type: "reasoning", id, content, …}`). */
  item(id: string): Record<string, unknown> | undefined;
  record(reply: StoredReply, items?: readonly { id: string }[]): void;
}

/** Options of {@link createConversationHistory}. */
export interface ConversationHistoryOptions {
  /** Most recent replies kept; older ones (and their items) are forgotten. @default 64 */
  limit?: number;
}

/**
 * An in-memory {@link ConversationHistory} keeping the `limit` most recent replies (a reference to an
 * older one is answered like an unknown id: 400). Memory per reply is one array of message references.
 */
export function createConversationHistory(options: ConversationHistoryOptions = {}): ConversationHistory {
  const limit = options.limit ?? 64;
  const replies = new Map<string, { reply: StoredReply; itemIds: string[] }>();
  const items = new Map<string, Record<string, unknown>>();
  return {
    reply: (id) => replies.get(id)?.reply,
    item: (id) => items.get(id),
    record(reply, replyItems = []) {
      const itemIds: string[] = [];
      for (const item of replyItems) {
        items.set(item.id, item as Record<string, unknown>);
        itemIds.push(item.id);
      }
      replies.delete(reply.id);
      replies.set(reply.id, { reply, itemIds });
      while (replies.size > limit) {
        const [oldest, entry] = replies.entries().next().value as [string, { itemIds: string[] }];
        replies.delete(oldest);
        for (const id of entry.itemIds) items.delete(id);
      }
    },
  };
}
