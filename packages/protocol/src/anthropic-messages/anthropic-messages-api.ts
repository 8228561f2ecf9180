import { z } from "zod";

/**
 * The top-level fields of a Messages request that Relax reads (see docs/contract.md#anthropic-messages).
 * Messages, their blocks and tools are validated one by one with the schemas below, so errors name
 * `messages[1].content[2].source.media_type`.
 *
 * @see https://docs.anthropic.com/en/api/messages
 */
export const anthropicMessagesRequestSchema = z.object({
  model: z.string().nullish(),
  messages: z.array(z.unknown()),
  /** A string or text blocks (joined with `"\n\n"`). */
  system: z.union([z.string(), z.array(z.object({ type: z.literal("text"), text: z.string() }))]).nullish(),
  /** Required by the Messages API; the turn limit in tokens. */
  max_tokens: z.number().int().positive(),
  stop_sequences: z.array(z.string().min(1)).nullish(),
  /** `type` sets `chat_template_kwargs.enable_thinking` (`type !== "disabled"`). */
  thinking: z.object({ type: z.enum(["enabled", "disabled", "adaptive"]) }).nullish(),
  tools: z.array(z.unknown()).nullish(),
  stream: z.boolean().nullish(),
  /**
   * Message threads (`anthropic-beta: message-threads-…`): `create` starts one, `continue` sends only the
   * new messages after `previous_message_id`, a committed reply of this session.
   */
  thread: z
    .discriminatedUnion("type", [
      z.object({ type: z.literal("create") }),
      z.object({ type: z.literal("continue"), previous_message_id: z.string().min(1) }),
    ])
    .nullish(),
});

/** Fields read from a Messages body; any other key produces an `ignored-field` warning. */
export const ANTHROPIC_MESSAGES_READ_FIELDS: ReadonlySet<string> = new Set(
  Object.keys(anthropicMessagesRequestSchema.shape),
);

/** One message: `user` or `assistant`, content a string or blocks. */
export const anthropicMessageSchema = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(z.unknown())]),
});

/**
 * A `system` entry inside `messages` (Claude Code's `mid-conversation-system` beta): a string or text
 * blocks, kept in place as a system message (normaliser `systemInMessages`).
 */
export const anthropicSystemMessageSchema = z.object({
  role: z.literal("system"),
  content: z.union([z.string(), z.array(z.object({ type: z.literal("text"), text: z.string() }))]),
});

const textBlockSchema = z.object({ type: z.literal("text"), text: z.string() });
/** `base64` (`media_type` must be `image/*`) or `url` source. */
const imageBlockSchema = z.object({
  type: z.literal("image"),
  source: z.discriminatedUnion("type", [
    z.object({ type: z.literal("base64"), media_type: z.string(), data: z.string().min(1) }),
    z.object({ type: z.literal("url"), url: z.string().min(1) }),
  ]),
});

/** Blocks of a user message. */
export const anthropicUserBlockSchema = z.discriminatedUnion("type", [
  textBlockSchema,
  imageBlockSchema,
  z.object({
    type: z.literal("tool_result"),
    tool_use_id: z.string().min(1),
    /** A string, or text / image blocks; empty is allowed. */
    content: z
      .union([z.string(), z.array(z.discriminatedUnion("type", [textBlockSchema, imageBlockSchema]))])
      .nullish(),
  }),
]);
/** A validated block of a user message. */
export type AnthropicUserBlock = z.infer<typeof anthropicUserBlockSchema>;

/** Blocks of an assistant message. `redacted_thinking` is accepted and dropped (nothing to render). */
export const anthropicAssistantBlockSchema = z.discriminatedUnion("type", [
  textBlockSchema,
  z.object({ type: z.literal("thinking"), thinking: z.string() }),
  z.object({ type: z.literal("redacted_thinking") }),
  z.object({
    type: z.literal("tool_use"),
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
  }),
]);

/** A client tool; `type` absent or `"custom"`. Server tools (`bash_…`, `web_search_…`) are dropped. */
export const anthropicToolSchema = z.object({
  name: z.string().min(1),
  description: z.string().nullish(),
  input_schema: z.record(z.string(), z.unknown()),
});

/** A content block of a reply. `signature` is an opaque id (there is no provider to verify it). */
export type AnthropicMessagesContentBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** `stop_reason` values Relax reports. */
export type AnthropicMessagesStopReason = "end_turn" | "max_tokens" | "tool_use" | "stop_sequence";

/**
 * `usage` of a reply, in tokens. When the engine reports prefix-cache hits, `input_tokens` excludes them
 * and `cache_read_input_tokens` holds them, as Anthropic counts.
 */
export interface AnthropicMessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/**
 * A Messages reply (`type: "message"`).
 * @see https://docs.anthropic.com/en/api/messages#response-content
 */
export interface AnthropicMessagesResponse {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: AnthropicMessagesContentBlock[];
  stop_reason: AnthropicMessagesStopReason;
  /** The matched `stop_sequences` entry when `stop_reason` is `stop_sequence`, else `null`. */
  stop_sequence: string | null;
  usage: AnthropicMessagesUsage;
}
