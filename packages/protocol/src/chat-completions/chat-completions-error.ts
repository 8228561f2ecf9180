import type { ErrorDescriptor } from "../errors/describe-error";

/**
 * OpenAI error body, used by Chat Completions and Responses (JSON replies and Chat in-stream errors).
 * @see https://platform.openai.com/docs/guides/error-codes
 */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** Renders an error descriptor as an OpenAI error body `{ error: { message, type, param, code } }`. */
export function buildChatCompletionsErrorBody(descriptor: ErrorDescriptor): OpenAIErrorBody {
  return {
    error: {
      message: descriptor.message,
      type: descriptor.type,
      param: descriptor.param,
      code: descriptor.code,
    },
  };
}
