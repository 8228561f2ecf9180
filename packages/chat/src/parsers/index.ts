/**
 * Reasoning and tool-call parsers under SGLang's parser names, and `parseAssistantOutput`, which turns
 * generated text (special tokens kept) into a canonical assistant message without dropping anything.
 */
export { createToolCallId } from "./create-tool-call-id";
export { InvalidParserInputError } from "./invalid-parser-input-error";
export {
  defaultStopMarkers,
  type ParseAssistantOutputOptions,
  type ParsedAssistantOutput,
  parseAssistantOutput,
} from "./parse-assistant-output";
export {
  getReasoningParser,
  getToolCallParser,
  type ReasoningParserName,
  reasoningParserNames,
  type ToolCallParserName,
  toolCallParserNames,
} from "./parser-registry";
export {
  createThinkTagReasoningParser,
  type ThinkTagReasoningOptions,
} from "./reasoning/think-tag-reasoning-parser";
export type { ReasoningParseInput, ReasoningParseResult, ReasoningParser } from "./reasoning-parser";
export type {
  GenerationFinishReason,
  ParsedToolCall,
  ToolCallFailure,
  ToolCallParseInput,
  ToolCallParseResult,
  ToolCallParser,
} from "./tool-call-parser";
export { UnknownParserError } from "./unknown-parser-error";
