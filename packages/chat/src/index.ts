/**
 * @module @relax/chat
 * Canonical chat types (the contract every Relax package shares), canonicalisation, tokenizers,
 * chat-template rendering, observation deltas and reasoning / tool-call parsers.
 *
 * This file is the public contract. Helpers other Relax packages share, the part schemas of a message,
 * the parser registry and the think-tag parser, the raw chat-template renderer, the vision resize rule,
 * the tokenizer factory and its file types live in `@relax/chat/internal` (unstable: no compatibility
 * promise between versions).
 */

// Canonicalisation
export { CanonicalizationError } from "./canonical/canonicalization-error";
export { type CanonicalizeMessagesOptions, canonicalizeMessages } from "./canonical/canonicalize-messages";
export { canonicalizeState } from "./canonical/canonicalize-state";
export { canonicalizeTemplateKwargs } from "./canonical/canonicalize-template-kwargs";
export { type CanonicalizeToolsOptions, canonicalizeTools } from "./canonical/canonicalize-tools";
// Errors
export { ChatTemplateError, type ChatTemplateFailure } from "./errors/chat-template-error";
export { ERROR_EXIT, ERROR_EXIT_CODES, type ErrorExitCategory, readErrorExit } from "./errors/error-exit";
export { FieldError } from "./errors/field-error";
export { formatFieldPath } from "./errors/format-field-path";
export { ObservationDeltaError, type ObservationDeltaFailure } from "./errors/observation-delta-error";
export { hasMarker, RelaxError } from "./errors/relax-error";
export { TokenizerLoadError, type TokenizerLoadFailure } from "./errors/tokenizer-load-error";
// Generation: the canonical request and the assistant turn
export type {
  AssistantTurn,
  ParseIssue,
  TokenLogprob,
  TurnFinishReason,
  TurnUsage,
} from "./generation/assistant-turn";
export type { CanonicalRequest } from "./generation/canonical-request";
// Loading a tokenizer directory (tokenizer files and its chat templates, checked at load)
export { loadTokenizer } from "./load-tokenizer";
// Media: images and the vision processor rule
export { type DataUriPayload, decodeDataUri } from "./media/decode-data-uri";
export { bytesDigest, imageIdentity } from "./media/image-digest";
export {
  createImageStore,
  describeImageBytes,
  type ImageFetcher,
  type ImageStore,
  type ImageStoreOptions,
  type ResolvedImage,
} from "./media/image-store";
export { MediaInputError } from "./media/media-input-error";
export { type MediaItem, mediaItemSchema } from "./media/media-item";
export { QWEN_VL_STYLE_CHAT_TEMPLATE } from "./media/qwen-vl-chat-template";
export {
  type ImageGrid,
  imageGrid,
  parseVisionProcessorConfig,
  QWEN2_VL_PROCESSOR_DEFAULTS,
  type VisionProcessorConfig,
} from "./media/vision-processor";
// Canonical messages, tools and conversation state
export {
  type AssistantMessage,
  assistantMessageSchema,
  type ChatMessage,
  type ChatRole,
  type ContentPart,
  chatMessageSchema,
  type ImageUrlPart,
  type MessageContent,
  type SystemMessage,
  type TextPart,
  type ToolCall,
  type ToolMessage,
  type UserMessage,
} from "./messages/chat-message";
export {
  type ChatTemplateKwargs,
  type ConversationState,
  chatTemplateKwargsSchema,
  type FunctionTool,
  functionToolSchema,
} from "./messages/function-tool";
// Parsers
export type {
  ReasoningParseInput,
  ReasoningParseResult,
  ReasoningParser,
} from "./parsers/contract/reasoning-parser";
export type {
  GenerationFinishReason,
  ParsedToolCall,
  ToolCallFailure,
  ToolCallParseInput,
  ToolCallParseResult,
  ToolCallParser,
} from "./parsers/contract/tool-call-parser";
export { InvalidParserInputError } from "./parsers/invalid-parser-input-error";
export {
  type ParseAssistantOutputOptions,
  type ParsedAssistantOutput,
  parseAssistantOutput,
} from "./parsers/parse-assistant-output";
export {
  type ReasoningParserName,
  reasoningParserNames,
  type ToolCallParserName,
  toolCallParserNames,
} from "./parsers/parser-registry";
export {
  type BuildToolCallStructuralTagOptions,
  buildToolCallStructuralTag,
  reasoningStart,
  structuralTagReasoningParsers,
  structuralTagToolCallParsers,
} from "./parsers/structural-tag/build-tool-call-structural-tag";
export type {
  StructuralTag,
  StructuralTagFormat,
  StructuralTagTag,
} from "./parsers/structural-tag/structural-tag";
export { UnknownParserError } from "./parsers/unknown-parser-error";
// Chat templates and observation deltas
export {
  type ChatRenderer,
  type ChatRendererOptions,
  createChatRenderer,
  type ObservationDelta,
  type ObservationDeltaInput,
  type RendererTokenizer,
} from "./template/create-chat-renderer";
// Vision renderers: a chat renderer with the image processor rule
export {
  collectImageUrls,
  createVisionRenderer,
  type VisionRenderer,
  type VisionRendererOptions,
} from "./template/create-vision-renderer";
export type { MediaExpansion, TokenRenderer } from "./template/token-renderer";
// Tokenizers
export { type HfDecodeOptions, HfTokenizer, type HfTokenizerInit } from "./tokenizer/hf-tokenizer";
export { resolveTokenizerPath } from "./tokenizer/resolve-tokenizer-path";
export type { TextTokenizer } from "./tokenizer/text-tokenizer";
