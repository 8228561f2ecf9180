import type { FunctionTool } from "../../messages/function-tool";
import type { StructuralTag, StructuralTagFormat, StructuralTagTag } from "./structural-tag";

/** Tool-call parsers whose call syntax {@link buildToolCallStructuralTag} can write. */
export const structuralTagToolCallParsers: readonly string[] = Object.freeze(["qwen25", "qwen", "hermes"]);

/** Reasoning parsers whose `<think>…</think>` block {@link buildToolCallStructuralTag} can allow. */
export const structuralTagReasoningParsers: readonly string[] = Object.freeze(["qwen3", "qwen3-thinking"]);

/** Options of {@link buildToolCallStructuralTag}. */
export interface BuildToolCallStructuralTagOptions {
  /**
   * The rollout's tool-call parser (`--agentic-tool-call-parser`): the template's call syntax. Needed only
   * when `tools` is not empty.
   */
  toolCallParser?: string | undefined;
  /** The request's tools: one tag per tool, its arguments constrained by the tool's `parameters`. */
  tools: readonly FunctionTool[];
  /** The final answer's JSON Schema (the request's response format), parsed. */
  responseSchema: Record<string, unknown> | boolean;
  /** The rollout's reasoning parser (`--agentic-reasoning-parser`), if any. */
  reasoningParser?: string | undefined;
  /**
   * The end of the rendered prompt (at least its generation prompt, special tokens kept): whether the
   * template opened a `<think>` block (the output starts inside it), closed one (no reasoning follows:
   * Qwen3's `enable_thinking: false`), or left it to the model. @default "" (left to the model)
   */
  promptTail?: string;
}

const TOOL_CALL_OPEN = "<tool_call>\n";
const TOOL_CALL_CLOSE = "\n</tool_call>";
const THINK_OPEN = "<think>";
const THINK_CLOSE = "</think>";
/** What Qwen3 writes between `</think>` and the answer. */
const THINK_SUFFIX = "\n\n";
/** Reasoning parsers whose model always starts in reasoning, with or without `<think>` (SGLang's force). */
const ALWAYS_REASONING = new Set(["qwen3-thinking"]);

/**
 * The SGLang `structural_tag` that lets the model EITHER write one or more tool calls in its template's
 * syntax, each call's arguments constrained by that tool's parameters schema, OR answer with one JSON value
 * valid against `responseSchema`. For `qwen25` / `qwen` / `hermes` (Qwen2.5, Qwen3) with tools
 * `get_weather` and `get_time`:
 *
 * ```text
 * or
 * ├─ tag "<tool_call>\n" … "\n</tool_call>"
 * │  └─ tags_with_separator (separator "\n</tool_call>\n<tool_call>\n", at_least_one)
 * │     ├─ tag '{"name": "get_weather", "arguments": ' json_schema(parameters) "}"
 * │     └─ tag '{"name": "get_time", "arguments": ' json_schema(parameters) "}"
 * └─ json_schema(responseSchema)
 * ```
 *
 * which accepts `<tool_call>\n{"name": "get_weather", "arguments": {…}}\n</tool_call>` (calls joined by
 * `\n`, as the Qwen templates render them) or the JSON answer, and nothing else. Every `or` element is
 * bounded, as xgrammar requires. With a `<think>` reasoning parser (`qwen3`, `qwen3-thinking`), the
 * reasoning block the template leaves to the model may come first: `<think>` any text `</think>\n\n`
 * (optional when the model may think, required when the prompt opened `<think>` or the parser always
 * reasons; absent when the prompt closed it).
 *
 * @returns `undefined` for a tool-call parser (or a reasoning parser) whose syntax is not supported here
 *   (see {@link structuralTagToolCallParsers}): the caller then sends no constraint at all.
 */
export function buildToolCallStructuralTag(
  options: BuildToolCallStructuralTagOptions,
): StructuralTag | undefined {
  const { toolCallParser, tools, responseSchema, reasoningParser, promptTail = "" } = options;
  if (
    tools.length > 0 &&
    (toolCallParser === undefined || !structuralTagToolCallParsers.includes(toolCallParser))
  )
    return undefined;
  if (reasoningParser !== undefined && !structuralTagReasoningParsers.includes(reasoningParser))
    return undefined;
  const answer: StructuralTagFormat = { type: "json_schema", json_schema: responseSchema };
  const body: StructuralTagFormat =
    tools.length === 0 ? answer : { type: "or", elements: [qwenToolCalls(tools), answer] };
  const reasoning = reasoningParser === undefined ? "none" : reasoningStart(reasoningParser, promptTail);
  return { type: "structural_tag", format: withReasoning(body, reasoning) };
}

/** One or more `<tool_call>` blocks, one tag per tool with the name fixed in `begin`. */
function qwenToolCalls(tools: readonly FunctionTool[]): StructuralTagTag {
  return {
    type: "tag",
    begin: TOOL_CALL_OPEN,
    content: {
      type: "tags_with_separator",
      tags: tools.map((tool) => ({
        type: "tag",
        begin: `{"name": ${JSON.stringify(tool.function.name)}, "arguments": `,
        content: { type: "json_schema", json_schema: tool.function.parameters },
        end: "}",
      })),
      separator: `${TOOL_CALL_CLOSE}\n${TOOL_CALL_OPEN}`,
      at_least_one: true,
      stop_after_first: false,
    },
    end: TOOL_CALL_CLOSE,
  };
}

/**
 * Where the output starts: inside a `<think>` block the prompt opened (or that the parser always starts
 * in), after a block the prompt closed, or where the model may open one. Only the very end of the prompt
 * counts (the generation prompt): a `<think>` a user or a tool wrote earlier in the tail opens nothing.
 */
export function reasoningStart(reasoningParser: string, promptTail: string): "none" | "optional" | "opened" {
  if (/<think>\s*$/.test(promptTail)) return "opened";
  const close = promptTail.lastIndexOf(THINK_CLOSE);
  if (close !== -1 && promptTail.slice(close + THINK_CLOSE.length).trim() === "") return "none";
  return ALWAYS_REASONING.has(reasoningParser) ? "opened" : "optional";
}

function withReasoning(
  body: StructuralTagFormat,
  reasoning: "none" | "optional" | "opened",
): StructuralTagFormat {
  if (reasoning === "none") return body;
  const think = (begin: string): StructuralTagFormat => ({
    type: "sequence",
    elements: [
      { type: "tag", begin, content: { type: "any_text" }, end: THINK_CLOSE },
      { type: "const_string", value: THINK_SUFFIX },
      body,
    ],
  });
  // The prompt opened the block (or the model always reasons): any text up to `</think>` comes first;
  // a `<think>` the model writes itself is part of that text.
  if (reasoning === "opened") return think("");
  return { type: "or", elements: [think(THINK_OPEN), body] };
}
