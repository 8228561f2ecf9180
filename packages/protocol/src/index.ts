/**
 * @module @relax/protocol
 * Chat Completions, Responses and Anthropic Messages for Relax: request projection to the canonical
 * request of `@relax/chat`, replies and buffered SSE in each protocol, errors in each protocol's format,
 * and a Web-standard `Request → Response` handler factory that any server can mount.
 */

// Anthropic Messages
export {
  type AnthropicMessagesContentBlock,
  type AnthropicMessagesResponse,
  type AnthropicMessagesStopReason,
  type AnthropicMessagesUsage,
  anthropicMessagesRequestSchema,
} from "./anthropic-messages/anthropic-messages-api";
export {
  type AnthropicMessagesErrorBody,
  buildAnthropicMessagesErrorBody,
  mapAnthropicErrorType,
} from "./anthropic-messages/anthropic-messages-error";
export {
  ANTHROPIC_MESSAGES_CONNECTED_FRAME,
  ANTHROPIC_MESSAGES_HEARTBEAT_FRAME,
  buildAnthropicMessagesSseErrorEvents,
  buildAnthropicMessagesSseEvents,
} from "./anthropic-messages/anthropic-messages-sse";
export { buildAnthropicMessagesResponse } from "./anthropic-messages/build-anthropic-messages-response";
export {
  ANTHROPIC_MESSAGES_IGNORED_FIELDS,
  convertAnthropicMessagesRequest,
} from "./anthropic-messages/convert-anthropic-messages-request";
export { mapAnthropicMessagesFinishReason } from "./anthropic-messages/map-anthropic-messages-finish-reason";
export { buildChatCompletionsResponse } from "./chat-completions/build-chat-completions-response";
// Chat Completions
export {
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionsAssistantMessage,
  type ChatCompletionsFinishReason,
  type ChatCompletionsRequest,
  type ChatCompletionsUsage,
  chatCompletionsRequestSchema,
} from "./chat-completions/chat-completions-api";
export {
  buildChatCompletionsErrorBody,
  type OpenAIErrorBody,
} from "./chat-completions/chat-completions-error";
export {
  buildChatCompletionsSseErrorEvents,
  buildChatCompletionsSseEvents,
  CHAT_COMPLETIONS_CONNECTED_FRAME,
  CHAT_COMPLETIONS_HEARTBEAT_FRAME,
} from "./chat-completions/chat-completions-sse";
export {
  CHAT_COMPLETIONS_IGNORED_FIELDS,
  convertChatCompletionsRequest,
} from "./chat-completions/convert-chat-completions-request";
export { mapChatCompletionsFinishReason } from "./chat-completions/map-chat-completions-finish-reason";
// Errors
export { clientDisconnect, describeError, type ErrorDescriptor } from "./errors/describe-error";
export {
  ERROR_STATUS_TABLE,
  type ErrorStatusEntry,
  type ErrorStatusName,
  getHTTPStatusCode,
} from "./errors/error-status-table";
export { ProtocolError } from "./errors/protocol-error";
export { buildErrorBody, errorDescriptorToResponse, toErrorResponse } from "./errors/to-error-response";
// Handler
export {
  createProtocolHandler,
  type GenerateContext,
  type ProtocolHandlerOptions,
  type RequestEndEvent,
} from "./handler/create-protocol-handler";
export type { ModelInfo } from "./handler/list-models";
export { matchRoute, type Route } from "./handler/match-route";
export { readCredential } from "./handler/read-credential";
export { buildResponsesResponse, createResponsesShell } from "./responses/build-responses-response";
export { convertResponsesRequest, RESPONSES_IGNORED_FIELDS } from "./responses/convert-responses-request";
export { mapResponsesFinishReason } from "./responses/map-responses-finish-reason";
// Responses
export {
  RESPONSES_REASONING_EFFORTS,
  type ResponsesOutputItem,
  type ResponsesResponse,
  type ResponsesUsage,
  responsesRequestSchema,
} from "./responses/responses-api";
export { buildResponsesErrorBody, buildResponsesErrorObject } from "./responses/responses-error";
export {
  buildResponsesSseErrorEvents,
  buildResponsesSseEvents,
  RESPONSES_CONNECTED_FRAME,
  RESPONSES_HEARTBEAT_FRAME,
} from "./responses/responses-sse";
// Shared types
export type { ConvertedRequest, Protocol, ProtocolWarning } from "./shared/protocol";
export type { ResponseContext } from "./shared/response-context";
export { createBufferedSseBody } from "./sse/create-buffered-sse-body";
// SSE
export {
  formatSseComment,
  formatSseEvents,
  formatSseFrame,
  type SseEvent,
} from "./sse/format-sse-frame";
export { SSE_HEADERS } from "./sse/sse-headers";
export { HEARTBEAT, type Heartbeat, withHeartbeat } from "./sse/with-heartbeat";
