/**
 * @module @relax/chat/internal
 * Canonicalisation helpers that other Relax packages share (protocol converters, the forest's state
 * hashes, the gateway's kwargs merge), and the parts behind the root entry: the zod schemas of a message's
 * parts, one message's canonicalisation, the parser registry and the think-tag reasoning parser, the
 * default stop markers, the raw chat-template renderer and its option types, the open-think check, the
 * vision resize rule, and the tokenizer factory with its file types. **Unstable:** these may change or
 * disappear in any release; embed `@relax/chat` through its root entry instead.
 */

export { canonicalToolArguments } from "../canonical/canonical-tool-arguments";
export { canonicalizeMessage, EMPTY_TOOL_RESULT } from "../canonical/canonicalize-messages";
export { mergeTemplateKwargs } from "../canonical/canonicalize-template-kwargs";
export { EMPTY_TOOL_PARAMETERS } from "../canonical/canonicalize-tools";
export { sameJson } from "../canonical/same-json";
export { stableStringify } from "../canonical/stable-stringify";
export { MAX_ASPECT_RATIO, smartResize } from "../media/vision-processor";
export {
  contentPartSchema,
  imageUrlPartSchema,
  messageContentSchema,
  systemMessageSchema,
  textPartSchema,
  toolCallSchema,
  toolMessageSchema,
  userMessageSchema,
} from "../messages/chat-message";
export { defaultStopMarkers } from "../parsers/parse-assistant-output";
export { getReasoningParser, getToolCallParser } from "../parsers/parser-registry";
export {
  createThinkTagReasoningParser,
  type ThinkTagReasoningOptions,
} from "../parsers/reasoning/think-tag-reasoning-parser";
export { DUMMY_PREFIX_MESSAGES } from "../template/create-chat-renderer";
export { QWEN_IMAGE_PAD_TOKEN } from "../template/create-vision-renderer";
export type { TemplateContentFormat } from "../template/detect-content-format";
export { promptEndsInOpenThink, type ThinkTags } from "../template/prompt-ends-in-open-think";
export { type RenderChatTemplateOptions, renderChatTemplate } from "../template/render-chat-template";
export type { ToolArgumentsMode } from "../template/to-template-messages";
export { type CreateTokenizerOptions, createTokenizer } from "../tokenizer/create-tokenizer";
export type { GenerationConfig, TokenizerConfig, TokenizerJson } from "../tokenizer/tokenizer-files";
