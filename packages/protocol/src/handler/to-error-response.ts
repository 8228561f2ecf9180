import { buildAnthropicMessagesErrorBody } from "../anthropic-messages/anthropic-messages-error";
import { buildChatCompletionsErrorBody } from "../chat-completions/chat-completions-error";
import { describeError, type ErrorDescriptor } from "../errors/describe-error";
import { buildResponsesErrorBody } from "../responses/responses-error";
import { assertNever } from "../shared/assert-never";
import type { Protocol } from "../shared/protocol";

/**
 * The error body of a protocol: OpenAI `{error: {message, type, param, code}}` for Chat Completions and
 * Responses, Anthropic `{type: "error", error: {type, message}}` for Messages.
 */
export function buildErrorBody(descriptor: ErrorDescriptor, protocol: Protocol): unknown {
  switch (protocol) {
    case "chat-completions":
      return buildChatCompletionsErrorBody(descriptor);
    case "responses":
      return buildResponsesErrorBody(descriptor);
    case "anthropic-messages":
      return buildAnthropicMessagesErrorBody(descriptor);
    default:
      return assertNever(protocol);
  }
}

/** Renders an already described error as a JSON `Response` in the protocol's error format. */
export function errorDescriptorToResponse(descriptor: ErrorDescriptor, protocol: Protocol): Response {
  return new Response(JSON.stringify(buildErrorBody(descriptor, protocol)), {
    status: descriptor.status,
    headers: {
      "content-type": "application/json",
      // The OpenAI and Anthropic SDKs honour this header over their own status-based retry rules.
      "x-should-retry": descriptor.retryable ? "true" : "false",
      ...(descriptor.retryable && descriptor.retryAfterSeconds !== undefined
        ? { "retry-after": String(Math.ceil(descriptor.retryAfterSeconds)) }
        : {}),
    },
  });
}

/**
 * The one place errors become HTTP responses: the status, type, code and param come from the one error
 * table, `ERROR_STATUS_TABLE` (read by {@link describeError}: a `CanonicalizationError` → 400 with its
 * field path as `param`, `ContextLengthError` → 400 `context_length_exceeded`, `SessionNotFoundError` →
 * 404 `session_discarded`, an engine connection failure → 503, a `ProtocolError` → its own status, an
 * `AbortError` → 499, anything else → 500 `internal_error`); the body follows the protocol. `x-should-retry: false` is sent unless the error is marked retryable.
 *
 * @example
 * ```ts
 * catch (error) { return toErrorResponse(error, "anthropic-messages"); }
 * ```
 */
export function toErrorResponse(error: unknown, protocol: Protocol): Response {
  return errorDescriptorToResponse(describeError(error, protocol), protocol);
}
