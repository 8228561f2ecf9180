import type {
  ReasoningParseInput,
  ReasoningParseResult,
  ReasoningParser,
} from "../contract/reasoning-parser";

/** Options of {@link createThinkTagReasoningParser}. */
export interface ThinkTagReasoningOptions {
  /** The registered name, e.g. `qwen3`. */
  name: string;
  /** Opens the reasoning section, e.g. `<think>`. */
  open: string;
  /** Closes it, e.g. `</think>`. */
  close: string;
  /**
   * Markers that end an unclosed reasoning section and start the content (Qwen3's `<tool_call>`,
   * Kimi-K2's `<|tool_calls_section_begin|>`). They only apply when the text has no closing marker at all.
   * @default []
   */
  toolStarts?: readonly string[];
  /** Always start inside the reasoning section (DeepSeek-R1). @default false */
  alwaysForce?: boolean;
}

/**
 * A reasoning parser for `OPEN reasoning CLOSE content` formats, following SGLang's
 * `BaseReasoningFormatDetector` with three deliberate differences (documented in docs/parsers.md):
 *
 * 1. The section is open when forced, when the text starts with `OPEN` (after whitespace; repeated
 *    leading `OPEN`s are stripped), or when a `CLOSE` appears without an `OPEN` before it — the prompt
 *    opened the section (Qwen3-Thinking, `reasoning</think>answer`). SGLang treats that last case as
 *    content, leaving `</think>` in the answer.
 * 2. Everything up to the first `CLOSE` is reasoning; a tool-call marker inside closed reasoning is
 *    reasoning, not a call. Only when there is no `CLOSE` at all does the first tool-start marker end the
 *    reasoning (SGLang's implicit close); the marker stays in the content for the tool-call parser.
 * 3. An unclosed section in a cut-off turn is reported as truncated instead of passing silently.
 *
 * Reasoning and content are trimmed of surrounding whitespace (the Qwen3 template strips the newlines
 * around `<think>` blocks the same way).
 */
export function createThinkTagReasoningParser(options: ThinkTagReasoningOptions): ReasoningParser {
  const { name, open, close, toolStarts = [], alwaysForce = false } = options;
  const parse = ({
    text,
    forceReasoning = false,
    finishReason,
  }: ReasoningParseInput): ReasoningParseResult => {
    let bodyStart = skipSpace(text, 0);
    let opened = false;
    while (text.startsWith(open, bodyStart)) {
      opened = true;
      bodyStart = skipSpace(text, bodyStart + open.length);
    }
    const closeAt = text.indexOf(close, bodyStart);
    if (!opened) {
      const impliedOpen = closeAt !== -1 && !text.slice(0, closeAt).includes(open);
      if (!alwaysForce && !forceReasoning && !impliedOpen) {
        return { reasoning: undefined, content: text.trim(), truncated: false };
      }
      bodyStart = 0;
    }
    if (closeAt !== -1) {
      return {
        reasoning: text.slice(bodyStart, closeAt).trim(),
        content: text.slice(closeAt + close.length).trim(),
        truncated: false,
      };
    }
    let toolAt = -1;
    for (const marker of toolStarts) {
      const at = text.indexOf(marker, bodyStart);
      if (at !== -1 && (toolAt === -1 || at < toolAt)) toolAt = at;
    }
    if (toolAt !== -1) {
      return {
        reasoning: text.slice(bodyStart, toolAt).trim(),
        content: text.slice(toolAt).trim(),
        truncated: false,
      };
    }
    return { reasoning: text.slice(bodyStart).trim(), content: "", truncated: finishReason !== "stop" };
  };
  return {
    name,
    alwaysForcesReasoning: alwaysForce,
    parse,
    promptOpensReasoning: (prompt) => {
      const lastOpen = prompt.lastIndexOf(open);
      return lastOpen !== -1 && prompt.indexOf(close, lastOpen) === -1;
    },
  };
}

function skipSpace(text: string, from: number): number {
  let pos = from;
  while (pos < text.length && /\s/.test(text[pos]!)) pos++;
  return pos;
}

/**
 * SGLang `qwen3` (Qwen3, QwQ): `<think>…</think>`; `<tool_call>` implicitly ends an unclosed section.
 * Force reasoning when the prompt ends inside an open `<think>` (see `promptOpensReasoning`).
 */
export const qwen3ReasoningParser = createThinkTagReasoningParser({
  name: "qwen3",
  open: "<think>",
  close: "</think>",
  toolStarts: ["<tool_call>"],
});

/** SGLang `qwen3-thinking` (Qwen3-*-Thinking-2507): like `qwen3`, always in reasoning mode. */
export const qwen3ThinkingReasoningParser = createThinkTagReasoningParser({
  name: "qwen3-thinking",
  open: "<think>",
  close: "</think>",
  toolStarts: ["<tool_call>"],
  alwaysForce: true,
});

/** SGLang `deepseek-r1`: `<think>…</think>`, always in reasoning mode (R1 often omits the `<think>`). */
export const deepseekR1ReasoningParser = createThinkTagReasoningParser({
  name: "deepseek-r1",
  open: "<think>",
  close: "</think>",
  alwaysForce: true,
});

/**
 * SGLang `deepseek-v3` (V3.1+ hybrid thinking): `<think>…</think>`, reasoning only when forced or
 * opened; `<｜tool▁calls▁begin｜>` implicitly ends an unclosed section.
 */
export const deepseekV3ReasoningParser = createThinkTagReasoningParser({
  name: "deepseek-v3",
  open: "<think>",
  close: "</think>",
  toolStarts: ["<｜tool▁calls▁begin｜>"],
});

/** SGLang `glm45` (GLM-4.5/4.6/4.7): `<think>…</think>`; `<tool_call>` implicitly ends an unclosed section. */
export const glm45ReasoningParser = createThinkTagReasoningParser({
  name: "glm45",
  open: "<think>",
  close: "</think>",
  toolStarts: ["<tool_call>"],
});

/** SGLang `kimi` (Kimi-VL thinking): `◁think▷…◁/think▷`. */
export const kimiReasoningParser = createThinkTagReasoningParser({
  name: "kimi",
  open: "◁think▷",
  close: "◁/think▷",
});

/** SGLang `kimi_k2` (Kimi-K2 thinking): `<think>…</think>`; the tool-call section implicitly ends it. */
export const kimiK2ReasoningParser = createThinkTagReasoningParser({
  name: "kimi_k2",
  open: "<think>",
  close: "</think>",
  toolStarts: ["<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"],
});

/** SGLang `mistral` (Magistral, Mistral-Small reasoning): `[THINK]…[/THINK]` control tokens. */
export const mistralReasoningParser = createThinkTagReasoningParser({
  name: "mistral",
  open: "[THINK]",
  close: "[/THINK]",
});
