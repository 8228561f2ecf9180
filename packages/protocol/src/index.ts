/**
 * @module @relax/protocol
 * Chat Completions, Responses and Anthropic Messages for Relax: request projection to the canonical
 * request of `@relax/chat`, replies and buffered SSE in each protocol, errors in each protocol's format,
 * and a Web-standard `Request → Response` handler factory that any server can mount.
 *
 * This file is the public contract: the handler factory and its options, the three request converters,
 * the status table, `ProtocolError`, `toErrorResponse`, server-side conversation history and the harness
 * normalisers. The protocols' wire types and request schemas, the error-status table of every package's
 * errors, Responses compaction, the request-limit and refusal-backoff defaults and the normaliser
 * functions are in `@relax/protocol/internal` (unstable).
 */

export { convertAnthropicMessagesRequest } from "./anthropic-messages/convert-anthropic-messages-request";
export { convertChatCompletionsRequest } from "./chat-completions/convert-chat-completions-request";
// Errors
export { ProtocolError, type ProtocolErrorOptions } from "./errors/protocol-error";
export { type ControlStatusRow, STATUS_TABLE, type StatusRow } from "./errors/status-table";
// Handler
export { createProtocolHandler } from "./handler/create-protocol-handler";
export type { GenerateContext, ProtocolHandlerOptions, RequestEndEvent } from "./handler/handler-options";
export type { ModelInfo } from "./handler/list-models";
export { DEFAULT_REFUSAL_BACKOFF, type RefusalBackoffOptions } from "./handler/refusal-backoff";
export type { RequestLimits } from "./handler/scan-request-limits";
export { toErrorResponse } from "./handler/to-error-response";
export { convertResponsesRequest } from "./responses/convert-responses-request";
// Server-side state and harness normalisers
export {
  type ConversationHistory,
  type ConversationHistoryOptions,
  createConversationHistory,
  type StoredReply,
} from "./shared/conversation-history";
export { HARNESS_NORMALIZER_NAMES, type HarnessNormalizers } from "./shared/harness-normalizers";
// Shared types
export type {
  ConvertedRequest,
  ConvertOptions,
  Protocol,
  ProtocolWarning,
} from "./shared/protocol";
export type { ResponseFormatConstraint } from "./shared/read-response-format";
