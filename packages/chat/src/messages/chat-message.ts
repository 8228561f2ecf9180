import { z } from "zod";

/**
 * A text content part.
 * @see https://platform.openai.com/docs/api-reference/chat/create (messages[].content[] of type "text")
 */
export const textPartSchema = z.object({ type: z.literal("text"), text: z.string() });
export type TextPart = z.infer<typeof textPartSchema>;

/**
 * An image content part, OpenAI Chat shape. `url` is an http(s) URL or a `data:` URI.
 * Request-only keys such as `detail` are dropped by canonicalisation.
 */
export const imageUrlPartSchema = z.object({
  type: z.literal("image_url"),
  image_url: z.object({ url: z.string() }),
});
export type ImageUrlPart = z.infer<typeof imageUrlPartSchema>;

/** A content part of a canonical message. */
export const contentPartSchema = z.discriminatedUnion("type", [textPartSchema, imageUrlPartSchema]);
export type ContentPart = z.infer<typeof contentPartSchema>;

/** Message content: a string, or a list of parts when the message carries media. */
export const messageContentSchema = z.union([z.string(), z.array(contentPartSchema)]);
export type MessageContent = z.infer<typeof messageContentSchema>;

/**
 * A function tool call made by the assistant. `arguments` is a JSON object serialised as a string;
 * in canonical form it is the canonical JSON of `canonicalToolArguments` (sorted keys, compact).
 */
export const toolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

export const systemMessageSchema = z.object({ role: z.literal("system"), content: messageContentSchema });
export const userMessageSchema = z.object({ role: z.literal("user"), content: messageContentSchema });
export const assistantMessageSchema = z.object({
  role: z.literal("assistant"),
  /** `""` when the turn only has reasoning and/or tool calls (canonical form never holds `null`). */
  content: messageContentSchema,
  reasoning_content: z.string().optional(),
  tool_calls: z.array(toolCallSchema).optional(),
});
export const toolMessageSchema = z.object({
  role: z.literal("tool"),
  content: messageContentSchema,
  tool_call_id: z.string().optional(),
});

export type SystemMessage = z.infer<typeof systemMessageSchema>;
export type UserMessage = z.infer<typeof userMessageSchema>;
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;
export type ToolMessage = z.infer<typeof toolMessageSchema>;

/**
 * A canonical model-facing chat message: the contract every Relax package shares.
 * Roles are `system | user | assistant | tool` (`developer` is mapped to `system` by canonicalisation).
 */
export const chatMessageSchema = z.discriminatedUnion("role", [
  systemMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolMessageSchema,
]);
export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type ChatRole = ChatMessage["role"];
