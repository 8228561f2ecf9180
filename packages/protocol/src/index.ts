/**
 * @module @relax/protocol
 * Chat Completions, Responses and Anthropic Messages for Relax: request projection to the canonical
 * request of `@relax/chat`, replies and buffered SSE in each protocol, errors in each protocol's format,
 * and a Web-standard `Request → Response` handler factory that any server can mount.
 *
 * This file is the public contract: the handler factory and its options, the three request converters
 * with their zod request schemas, the reply types, `ProtocolError` and `toErrorResponse`.
 */

// Anthropic Messages
export {
  type AnthropicMessagesResponse,
  anthropicMessagesRequestSchema,
} from "./anthropic-messages/anthropic-messages-api";
export { convertAnthropicMessagesRequest } from "./anthropic-messages/convert-anthropic-messages-request";
// Chat Completions
export {
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionsRequest,
  chatCompletionsRequestSchema,
} from "./chat-completions/chat-completions-api";
export { convertChatCompletionsRequest } from "./chat-completions/convert-chat-completions-request";
// Errors
export {
  ERROR_STATUS_TABLE,
  type ErrorStatusEntry,
  type ErrorStatusName,
  getHTTPStatusCode,
} from "./errors/error-status-table";
export { ProtocolError, type ProtocolErrorOptions } from "./errors/protocol-error";
export {
  type AgentStatusCode,
  type AgentStatusRow,
  type ControlStatusCode,
  type ControlStatusRow,
  STATUS_TABLE,
  type StatusCode,
  type StatusRow,
  statusOf,
} from "./errors/status-table";
// Handler
export { createProtocolHandler } from "./handler/create-protocol-handler";
export type { GenerateContext, ProtocolHandlerOptions, RequestEndEvent } from "./handler/handler-options";
export type { ModelInfo } from "./handler/list-models";
export { DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_REQUEST_BYTES } from "./handler/read-json-body";
export {
  DEFAULT_REFUSAL_BACKOFF,
  RefusalBackoff,
  type RefusalBackoffOptions,
} from "./handler/refusal-backoff";
export { DEFAULT_REQUEST_LIMITS, type RequestLimits } from "./handler/scan-request-limits";
export { toErrorResponse } from "./handler/to-error-response";
// Responses
export { convertResponsesRequest } from "./responses/convert-responses-request";
export { type ResponsesResponse, responsesRequestSchema } from "./responses/responses-api";
export {
  buildResponsesCompactionResponse,
  convertResponsesCompactRequest,
  RESPONSES_COMPACTION_PROMPT,
  type ResponsesCompactedMessageItem,
  type ResponsesCompactionItem,
  type ResponsesCompactionResponse,
} from "./responses/responses-compaction";
export {
  decodeCompactionContent,
  encodeCompactionContent,
  RESPONSES_COMPACTION_SUMMARY_PREFIX,
} from "./responses/responses-compaction-content";
// Server-side state and harness normalisers
export {
  type ConversationHistory,
  type ConversationHistoryOptions,
  createConversationHistory,
  type StoredReply,
} from "./shared/conversation-history";
export {
  DEFAULT_HARNESS_NORMALIZERS,
  HARNESS_NORMALIZER_NAMES,
  type HarnessNormalizerName,
  type HarnessNormalizers,
  normalizeMessages,
  resolveHarnessNormalizers,
  stripBillingHeader,
} from "./shared/harness-normalizers";
// Shared types
export type {
  ConvertedRequest,
  ConvertOptions,
  Protocol,
  ProtocolWarning,
  ReplyOptions,
} from "./shared/protocol";
export type { ResponseFormatConstraint } from "./shared/read-response-format";
