import { z } from "zod";
import type { ChatMessage } from "./chat-message";

/**
 * A function tool in the canonical (OpenAI Chat) shape. Other fields (`strict`, …) and non-function
 * tools are dropped by canonicalisation. `parameters` is a JSON Schema object.
 */
export const functionToolSchema = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()),
  }),
});
export type FunctionTool = z.infer<typeof functionToolSchema>;

/**
 * Extra variables for the chat template (e.g. `{ enable_thinking: false }`). Keys are sorted
 * recursively in canonical form; values are kept verbatim, so `1`, `1.0` and `true` stay distinct
 * where the source can tell them apart. `add_generation_prompt`, `tokenize` and `tools` are reserved.
 */
export const chatTemplateKwargsSchema = z.record(z.string(), z.unknown());
export type ChatTemplateKwargs = z.infer<typeof chatTemplateKwargsSchema>;

/**
 * The canonical triple that identifies a conversation state: full message history, function tools and
 * chat template kwargs. Every protocol request is projected to one of these.
 */
export interface ConversationState {
  messages: ChatMessage[];
  tools: FunctionTool[];
  chatTemplateKwargs: ChatTemplateKwargs;
}
