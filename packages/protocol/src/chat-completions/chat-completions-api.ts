import { z } from "zod";

/**
 * The fields of a Chat Completions request that Relax reads (see docs/contract.md#chat-completions).
 * Everything else is stripped and reported as an ignored field. `messages`, `tools` and
 * `chat_template_kwargs` are validated by `@relax/chat` canonicalisation, which owns the Chat message shape
 * and names field paths.
 *
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
export const chatCompletionsRequestSchema = z.object({
  /** Echoed back only; it does not select the backend. */
  model: z.string().nullish(),
  /** Full history of one conversation branch. */
  messages: z.unknown().optional(),
  tools: z.unknown().optional(),
  chat_template_kwargs: z.unknown().optional(),
  /** Turn limit in tokens; wins over `max_tokens`. */
  max_completion_tokens: z.number().int().positive().nullish(),
  /** Legacy alias of `max_completion_tokens`. */
  max_tokens: z.number().int().positive().nullish(),
  stop: z.union([z.string().min(1), z.array(z.string().min(1))]).nullish(),
  seed: z.number().int().nullish(),
  /** Return per-token logprobs of the generated tokens. */
  logprobs: z.boolean().nullish(),
  stream: z.boolean().nullish(),
});
/** The fields of a Chat Completions body that Relax reads, after validation. */
export type ChatCompletionsRequest = z.infer<typeof chatCompletionsRequestSchema>;

/** Fields read from a Chat Completions body; any other key produces an `ignored-field` warning. */
export const CHAT_COMPLETIONS_READ_FIELDS: ReadonlySet<string> = new Set(
  Object.keys(chatCompletionsRequestSchema.shape),
);

/** A tool call in a Chat Completions reply. */
export interface ChatCompletionsToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** One generated token's logprob, OpenAI shape (`top_logprobs` is always empty). */
export interface ChatCompletionsTokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: [];
}

/** `usage` of a Chat Completions reply, in tokens. */
export interface ChatCompletionsUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

/** Finish reasons Relax reports on Chat Completions. */
export type ChatCompletionsFinishReason = "stop" | "length" | "tool_calls";

/**
 * The assistant message of a reply. `reasoning` repeats `reasoning_content` because clients differ:
 * SGLang, vLLM and Qwen Code read `reasoning_content`, `@openai/agents` reads `reasoning`.
 */
export interface ChatCompletionsAssistantMessage {
  role: "assistant";
  /** `null` when the turn only has tool calls (as OpenAI does). */
  content: string | null;
  reasoning_content?: string;
  reasoning?: string;
  tool_calls?: ChatCompletionsToolCall[];
}

/**
 * A non-streaming Chat Completions reply (`object: "chat.completion"`).
 * @see https://platform.openai.com/docs/api-reference/chat/object
 */
export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  /** Unix seconds. */
  created: number;
  model: string;
  choices: [
    {
      index: 0;
      message: ChatCompletionsAssistantMessage;
      logprobs: { content: ChatCompletionsTokenLogprob[]; refusal: null } | null;
      finish_reason: ChatCompletionsFinishReason;
    },
  ];
  usage: ChatCompletionsUsage;
}

/** The delta of a streamed chunk. */
export interface ChatCompletionsDelta {
  role?: "assistant";
  content?: string | null;
  reasoning_content?: string;
  reasoning?: string;
  tool_calls?: (ChatCompletionsToolCall & { index: number })[];
}

/**
 * One streamed chunk (`object: "chat.completion.chunk"`).
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */
export interface ChatCompletionChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: [
    {
      index: 0;
      delta: ChatCompletionsDelta;
      logprobs: { content: ChatCompletionsTokenLogprob[]; refusal: null } | null;
      finish_reason: ChatCompletionsFinishReason | null;
    },
  ];
  usage?: ChatCompletionsUsage;
}
