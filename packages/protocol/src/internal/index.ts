/**
 * @module @relax/protocol/internal
 * The parts behind `@relax/protocol`'s root entry: each protocol's wire types (replies, stream chunks,
 * requests) and zod request schemas, Responses compaction and its content encoding, the error-status table
 * of every package's errors and its lookups, the status codes, the request-limit and body-size defaults,
 * the refusal backoff, the harness normalisers' defaults and functions, and the reply options.
 * **Unstable:** these follow the protocols and the handler and may change or disappear in any release;
 * mount the handler from `@relax/protocol` instead.
 */

// Anthropic Messages
export {
  type AnthropicMessagesResponse,
  anthropicMessagesRequestSchema,
} from "../anthropic-messages/anthropic-messages-api";
// Chat Completions
export {
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionsRequest,
  chatCompletionsRequestSchema,
} from "../chat-completions/chat-completions-api";
// Errors
export {
  ERROR_STATUS_TABLE,
  type ErrorStatusEntry,
  type ErrorStatusName,
  getHTTPStatusCode,
} from "../errors/error-status-table";
export {
  type AgentStatusCode,
  type AgentStatusRow,
  type ControlStatusCode,
  type StatusCode,
  statusOf,
} from "../errors/status-table";
// Handler
export { DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_REQUEST_BYTES } from "../handler/read-json-body";
export { RefusalBackoff } from "../handler/refusal-backoff";
export { DEFAULT_REQUEST_LIMITS } from "../handler/scan-request-limits";
// Responses
export { type ResponsesResponse, responsesRequestSchema } from "../responses/responses-api";
export {
  buildResponsesCompactionResponse,
  convertResponsesCompactRequest,
  RESPONSES_COMPACTION_PROMPT,
  type ResponsesCompactedMessageItem,
  type ResponsesCompactionItem,
  type ResponsesCompactionResponse,
} from "../responses/responses-compaction";
export {
  decodeCompactionContent,
  encodeCompactionContent,
  RESPONSES_COMPACTION_SUMMARY_PREFIX,
} from "../responses/responses-compaction-content";
// Harness normalisers
export {
  DEFAULT_HARNESS_NORMALIZERS,
  type HarnessNormalizerName,
  normalizeMessages,
  resolveHarnessNormalizers,
  stripBillingHeader,
} from "../shared/harness-normalizers";
export type { ReplyOptions } from "../shared/protocol";
