import type { GenerationFinishReason } from "./tool-call-parser";

/** Input of {@link ReasoningParser.parse}. */
export interface ReasoningParseInput {
  /** The generated text, special tokens kept, trailing stop marker removed. */
  text: string;
  /**
   * Start inside the reasoning section although the text has no opening marker, because the prompt
   * opened it (e.g. it ends with `<think>\n`). Parsers that always force reasoning ignore `false`.
   * @default false
   */
  forceReasoning?: boolean;
  finishReason: GenerationFinishReason;
}

/** Output of {@link ReasoningParser.parse}. */
export interface ReasoningParseResult {
  /** The reasoning text, trimmed; `undefined` when the text had no reasoning section at all. */
  reasoning: string | undefined;
  /** The rest of the text, handed to the tool-call parser. */
  content: string;
  /** True when the generation was cut off (`length`/`abort`) while still inside the reasoning section. */
  truncated: boolean;
}

/**
 * A reasoning parser: splits generated text into reasoning and content, registered under SGLang's
 * `--reasoning-parser` name. Pure string function.
 */
export interface ReasoningParser {
  /** The registered name, e.g. `qwen3`. */
  readonly name: string;
  /** True for parsers that always start inside the reasoning section (`deepseek-r1`, `gpt-oss`). */
  readonly alwaysForcesReasoning: boolean;
  parse(input: ReasoningParseInput): ReasoningParseResult;
  /**
   * Whether a rendered prompt leaves the reasoning section open, so the output starts inside it
   * (pass the result as `forceReasoning`). True when the prompt's last opening marker comes after its
   * last closing marker, e.g. Qwen3-Thinking's `…<|im_start|>assistant\n<think>\n`; false for Qwen3's
   * `enable_thinking=false` prompt, which ends with the closed `<think>\n\n</think>\n\n`.
   */
  promptOpensReasoning(prompt: string): boolean;
}
