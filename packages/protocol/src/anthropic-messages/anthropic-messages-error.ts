import type { ErrorDescriptor } from "../errors/describe-error";
import { agentStatusRow } from "../errors/status-table";

/**
 * Anthropic error body, for JSON replies and `event: error` frames.
 * @see https://docs.anthropic.com/en/api/errors
 */
export interface AnthropicMessagesErrorBody {
  type: "error";
  error: { type: string; message: string };
}

/** Anthropic's error `type` for an HTTP status: the fallback for a code outside `STATUS_TABLE` (a `ProtocolError` of the embedder). */
export function mapAnthropicErrorType(status: number): string {
  switch (status) {
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

/**
 * Anthropic's error `type` for a descriptor: its code's `anthropicType` in `STATUS_TABLE`, else (a code
 * outside the table, or a status the thrower chose) {@link mapAnthropicErrorType} of the status.
 */
export function anthropicErrorType(descriptor: ErrorDescriptor): string {
  const row = agentStatusRow(descriptor.code);
  return row !== undefined && row.status === descriptor.status
    ? row.agent.anthropicType
    : mapAnthropicErrorType(descriptor.status);
}

/**
 * Renders an error descriptor as `{ type: "error", error: { type, message } }`. Anthropic bodies have
 * no `param`, so the message carries the field path (`messages[1].content[2].source.media_type: …`).
 */
export function buildAnthropicMessagesErrorBody(descriptor: ErrorDescriptor): AnthropicMessagesErrorBody {
  return {
    type: "error",
    error: { type: anthropicErrorType(descriptor), message: descriptor.message },
  };
}
