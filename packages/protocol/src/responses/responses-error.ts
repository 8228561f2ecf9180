import {
  buildChatCompletionsErrorBody,
  type OpenAIErrorBody,
} from "../chat-completions/chat-completions-error";
import type { ErrorDescriptor } from "../errors/describe-error";

/** Errors on the Responses JSON path use the OpenAI error body (see docs/contract.md#errors). */
export function buildResponsesErrorBody(descriptor: ErrorDescriptor): OpenAIErrorBody {
  return buildChatCompletionsErrorBody(descriptor);
}

/**
 * The `error` object of a failed Response (`response.failed` in a stream). Codex reads `code`
 * (`context_length_exceeded` ends the turn instead of retrying).
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-error
 */
export interface ResponsesErrorObject {
  code: string;
  message: string;
  type: string;
  param: string | null;
}

/** Renders an error descriptor as the `error` of a failed Response. */
export function buildResponsesErrorObject(descriptor: ErrorDescriptor): ResponsesErrorObject {
  return {
    code: descriptor.code ?? descriptor.type,
    message: descriptor.message,
    type: descriptor.type,
    param: descriptor.param,
  };
}
