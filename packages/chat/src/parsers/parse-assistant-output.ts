import type { ParseIssue, TurnFinishReason } from "../generation/assistant-turn";
import type { AssistantMessage, ToolCall } from "../messages/chat-message";
import type { FunctionTool } from "../messages/function-tool";
import type { ReasoningParser } from "./contract/reasoning-parser";
import type { GenerationFinishReason, ToolCallParser } from "./contract/tool-call-parser";
import { createToolCallId } from "./create-tool-call-id";
import { InvalidParserInputError } from "./invalid-parser-input-error";
import {
  getReasoningParser,
  getToolCallParser,
  type ReasoningParserName,
  type ToolCallParserName,
} from "./parser-registry";

/**
 * End-of-turn markers removed from the end of the decoded text of a stopped turn before parsing (at most
 * one, and only when it is the very last thing): Qwen/ChatML `<|im_end|>`, `<|endoftext|>`, Llama 3 `<|eot_id|>` /
 * `<|eom_id|>` / `<|end_of_text|>`, DeepSeek `<｜end▁of▁sentence｜>`, Mistral/Llama 2 `</s>`, Harmony
 * `<|return|>` / `<|call|>`, GLM `<|user|>` / `<|observation|>`, Kimi `[EOS]`.
 */
export const defaultStopMarkers: readonly string[] = Object.freeze([
  "<|im_end|>",
  "<|endoftext|>",
  "<|eot_id|>",
  "<|eom_id|>",
  "<|end_of_text|>",
  "<｜end▁of▁sentence｜>",
  "</s>",
  "<|return|>",
  "<|call|>",
  "<|user|>",
  "<|observation|>",
  "[EOS]",
]);

/** Options of {@link parseAssistantOutput}. */
export interface ParseAssistantOutputOptions {
  /**
   * The generated token ids decoded **with special tokens kept**, including the trailing stop token if
   * the engine returned it (`no_stop_trim`); a trailing {@link defaultStopMarkers} entry is removed here.
   */
  text: string;
  /** SGLang `--tool-call-parser` name or a parser object. Without it, no tool calls are parsed. */
  toolParser?: ToolCallParserName | (string & {}) | ToolCallParser | undefined;
  /** SGLang `--reasoning-parser` name or a parser object. Without it, there is no reasoning section. */
  reasoningParser?: ReasoningParserName | (string & {}) | ReasoningParser | undefined;
  /**
   * The request's function tools. The tool-call parser runs only when this is non-empty (see
   * docs/contract.md#token-in-token-out); a call naming a function not listed here is kept and reported as
   * `unknown_tool`.
   */
  tools: readonly FunctionTool[];
  /** SGLang's `finish_reason.type` for the generation. */
  finishReason: GenerationFinishReason;
  /**
   * Start inside the reasoning section: the prompt ended inside an open `<think>` (see
   * `ReasoningParser.promptOpensReasoning`). Parsers that always force reasoning ignore `false`.
   * @default false
   */
  forceReasoning?: boolean;
  /**
   * Seed of the deterministic tool-call ids, e.g. the parent state hash (plus the generated token ids),
   * so a replayed history gets the same ids. See `createToolCallId`.
   */
  callIdSeed: string;
  /** See `ToolCallParseInput.parametersAlias`. @default true */
  parametersAlias?: boolean;
  /** End-of-turn markers to strip from the end of `text`. @default defaultStopMarkers */
  stopMarkers?: readonly string[];
}

/** The parsed assistant turn: the canonical message, what went wrong, and the turn's finish reason. */
export interface ParsedAssistantOutput {
  message: AssistantMessage;
  /** Problems found, reasoning first, then tool calls in text order. Empty when everything parsed. */
  issues: ParseIssue[];
  /**
   * `tool_calls` when the generation stopped normally and at least one call parsed; `length` for a
   * cut-off turn (`length` or `abort`), even when calls parsed; otherwise `stop`.
   */
  finishReason: TurnFinishReason;
}

const FINISH_REASONS: readonly string[] = ["stop", "length", "abort"];

/**
 * Turns generated text into a canonical assistant message: the reasoning parser runs first, then the
 * tool-call parser on the content part only (so tool-call-shaped text inside reasoning is never a call).
 * Nothing is dropped: malformed and cut-off calls stay in `content` as raw text and are listed in
 * `issues` with their index and reason; parallel calls are all kept, in order; text around the calls is
 * kept (stretches trimmed and joined with `"\n"`). Arguments are canonical JSON, ids deterministic
 * (Kimi-K2's native `functions.name:idx` ids are kept).
 *
 * @throws UnknownParserError for an unregistered parser name.
 * @throws InvalidParserInputError naming the option when an option has the wrong type.
 * @see docs/parsers.md for the syntaxes and how this differs from SGLang's detectors.
 * @example
 * const { message, issues, finishReason } = parseAssistantOutput({
 *   text: tokenizer.decode(outputIds, { skipSpecialTokens: false }),
 *   reasoningParser: "qwen3", toolParser: "qwen25", tools, finishReason: "stop", callIdSeed: stateHash,
 * });
 */
export function parseAssistantOutput(options: ParseAssistantOutputOptions): ParsedAssistantOutput {
  validate(options);
  const {
    tools,
    finishReason,
    callIdSeed,
    forceReasoning = false,
    stopMarkers = defaultStopMarkers,
  } = options;
  const reasoningParser = resolve<ReasoningParser>(options.reasoningParser, getReasoningParser);
  const toolParser = resolve<ToolCallParser>(options.toolParser, getToolCallParser);
  const issues: ParseIssue[] = [];

  // A stop token only ends a turn that stopped; a cut-off turn keeps its text whole.
  let content = finishReason === "stop" ? stripStopMarker(options.text, stopMarkers) : options.text;
  let reasoning: string | undefined;
  if (reasoningParser !== undefined) {
    const split = reasoningParser.parse({ text: content, forceReasoning, finishReason });
    reasoning = split.reasoning;
    content = split.content;
    if (split.truncated) {
      issues.push({
        kind: "truncated_reasoning",
        message: `the generation was cut off (finish_reason=${finishReason}) inside the reasoning section`,
      });
    }
  }

  const toolCalls: ToolCall[] = [];
  if (toolParser !== undefined && tools.length > 0) {
    const parsed = toolParser.parse({
      text: content,
      tools,
      finishReason,
      ...(options.parametersAlias !== undefined ? { parametersAlias: options.parametersAlias } : {}),
    });
    content = parsed.content;
    const known = new Set(tools.map((tool) => tool.function.name));
    const toolIssues: ParseIssue[] = [];
    for (const failure of parsed.failures) {
      toolIssues.push({
        kind: failure.kind,
        callIndex: failure.callIndex,
        message: `tool call ${failure.callIndex}: ${failure.reason}`,
        raw: failure.raw,
      });
    }
    for (const call of parsed.calls) {
      if (!known.has(call.name)) {
        toolIssues.push({
          kind: "unknown_tool",
          callIndex: call.callIndex,
          message: `tool call ${call.callIndex}: ${JSON.stringify(call.name)} is not one of the request's tools (${[...known].join(", ")})`,
        });
      }
      const id =
        call.nativeId ??
        createToolCallId({
          callIndex: toolCalls.length,
          seed: callIdSeed,
          name: call.name,
          arguments: call.arguments,
        });
      toolCalls.push({ id, type: "function", function: { name: call.name, arguments: call.arguments } });
    }
    toolIssues.sort((a, b) => (a.callIndex ?? 0) - (b.callIndex ?? 0));
    issues.push(...toolIssues);
  } else {
    content = content.trim();
  }

  const message: AssistantMessage = { role: "assistant", content };
  if (reasoning !== undefined && reasoning !== "") message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return { message, issues, finishReason: turnFinishReason(finishReason, toolCalls.length) };
}

/** The canonical finish reason of a turn; see {@link ParsedAssistantOutput.finishReason}. */
function turnFinishReason(finishReason: GenerationFinishReason, callCount: number): TurnFinishReason {
  switch (finishReason) {
    case "stop":
      return callCount > 0 ? "tool_calls" : "stop";
    case "length":
    case "abort":
      return "length";
    default:
      return assertNever(finishReason);
  }
}

function assertNever(value: never): never {
  throw new InvalidParserInputError({
    path: "finishReason",
    reason: `unexpected value ${JSON.stringify(value)}`,
  });
}

/** Removes one trailing stop marker, if the text ends with one. */
function stripStopMarker(text: string, markers: readonly string[]): string {
  for (const marker of markers) {
    if (marker !== "" && text.endsWith(marker)) return text.slice(0, -marker.length);
  }
  return text;
}

function resolve<P>(parser: string | P | undefined, lookup: (name: string) => P): P | undefined {
  if (parser === undefined) return undefined;
  return typeof parser === "string" ? lookup(parser) : parser;
}

function validate(options: ParseAssistantOutputOptions): void {
  const fail = (path: string, reason: string): never => {
    throw new InvalidParserInputError({ path, reason });
  };
  if (typeof options !== "object" || options === null) fail("options", "must be an object");
  if (typeof options.text !== "string") fail("text", "must be a string");
  if (!FINISH_REASONS.includes(options.finishReason)) {
    fail(
      "finishReason",
      `must be one of ${FINISH_REASONS.join(", ")}, got ${JSON.stringify(options.finishReason)}`,
    );
  }
  if (typeof options.callIdSeed !== "string") fail("callIdSeed", "must be a string");
  if (!Array.isArray(options.tools)) fail("tools", "must be an array of function tools");
  options.tools.forEach((tool, index) => {
    if (typeof tool?.function?.name !== "string") fail(`tools[${index}].function.name`, "must be a string");
  });
  if (options.forceReasoning !== undefined && typeof options.forceReasoning !== "boolean") {
    fail("forceReasoning", "must be a boolean");
  }
  for (const key of ["toolParser", "reasoningParser"] as const) {
    const parser = options[key];
    if (parser !== undefined && typeof parser !== "string" && typeof parser?.parse !== "function") {
      fail(key, "must be a parser name or a parser object");
    }
  }
}
