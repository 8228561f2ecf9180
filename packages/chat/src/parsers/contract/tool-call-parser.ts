import type { FunctionTool } from "../../messages/function-tool";

/**
 * How the engine ended a generation, as SGLang's `/generate` reports it in `meta_info.finish_reason.type`.
 * `length` and `abort` both mean the text was cut off: a call still open at the end is truncated.
 */
export type GenerationFinishReason = "stop" | "length" | "abort";

/** Input of {@link ToolCallParser.parse}. */
export interface ToolCallParseInput {
  /** The content part of the generated text (after the reasoning parser), special tokens kept. */
  text: string;
  /** The request's function tools; schema-typed formats (`qwen3_coder`, `glm*`) read parameter types here. */
  tools: readonly FunctionTool[];
  finishReason: GenerationFinishReason;
  /**
   * Whether JSON call objects may name their argument member `parameters` instead of `arguments` (SGLang
   * accepts both in every JSON detector). Only the JSON formats (`qwen25`/`hermes`, `mistral`) read it;
   * `llama3` always accepts both. @default true
   */
  parametersAlias?: boolean;
}

/** A well-formed tool call found in the text. */
export interface ParsedToolCall {
  /** Index of this call among all call blocks the parser found (well-formed or not), in text order. */
  callIndex: number;
  /** Function name as the model wrote it (without a `functions.` namespace). */
  name: string;
  /** Canonical JSON text of the argument object (see `canonicalToolArguments`). */
  arguments: string;
  /** The id the model wrote itself, kept as is (Kimi-K2 `functions.get_weather:0`). */
  nativeId?: string;
}

/** A call block that could not be turned into a tool call. Its raw text stays in the content. */
export interface ToolCallFailure {
  /** Index of the block among all call blocks the parser found, in text order. */
  callIndex: number;
  /** `truncated_tool_call` when the text ended inside the block and the generation was cut off. */
  kind: "malformed_tool_call" | "truncated_tool_call";
  /** Why it failed, e.g. `invalid JSON: expected ',' or '}' at offset 31`. */
  reason: string;
  /** The raw text of the block (from its opening marker). */
  raw: string;
}

/** Output of {@link ToolCallParser.parse}. */
export interface ToolCallParseResult {
  /**
   * Text outside the parsed calls, failed blocks included verbatim: stretches between parsed calls are
   * trimmed, empty ones dropped, and the rest joined with `"\n"`.
   */
  content: string;
  calls: ParsedToolCall[];
  failures: ToolCallFailure[];
}

/**
 * A tool-call parser: a pure function from generated text to tool calls, registered under SGLang's
 * `--tool-call-parser` name. Unlike SGLang's detectors it never drops text: malformed or cut-off blocks
 * stay in `content` and are listed in `failures`.
 */
export interface ToolCallParser {
  /** The registered name, e.g. `qwen25`. */
  readonly name: string;
  parse(input: ToolCallParseInput): ToolCallParseResult;
}
