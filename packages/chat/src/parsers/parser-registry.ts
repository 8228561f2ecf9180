import type { ReasoningParser } from "./contract/reasoning-parser";
import type { ToolCallParser } from "./contract/tool-call-parser";
import { gptOssReasoningParser } from "./reasoning/gpt-oss-reasoning-parser";
import {
  deepseekR1ReasoningParser,
  deepseekV3ReasoningParser,
  glm45ReasoningParser,
  kimiK2ReasoningParser,
  kimiReasoningParser,
  mistralReasoningParser,
  qwen3ReasoningParser,
  qwen3ThinkingReasoningParser,
} from "./reasoning/think-tag-reasoning-parser";
import { deepseekV3ToolCallParser, deepseekV31ToolCallParser } from "./tool-calls/deepseek-tool-call-parsers";
import { glm45ToolCallParser, glm47ToolCallParser } from "./tool-calls/glm-tool-call-parsers";
import { gptOssToolCallParser } from "./tool-calls/gpt-oss-tool-call-parser";
import { kimiK2ToolCallParser } from "./tool-calls/kimi-k2-tool-call-parser";
import { llama3ToolCallParser } from "./tool-calls/llama3-tool-call-parser";
import { mistralToolCallParser } from "./tool-calls/mistral-tool-call-parser";
import { pythonicToolCallParser } from "./tool-calls/pythonic-tool-call-parser";
import { qwen3CoderToolCallParser } from "./tool-calls/qwen3-coder-tool-call-parser";
import { hermesToolCallParser, qwen25ToolCallParser } from "./tool-calls/qwen25-tool-call-parser";
import { UnknownParserError } from "./unknown-parser-error";

const TOOL_CALL_PARSERS = {
  qwen25: qwen25ToolCallParser,
  qwen: qwen25ToolCallParser,
  hermes: hermesToolCallParser,
  qwen3_coder: qwen3CoderToolCallParser,
  step3p5: qwen3CoderToolCallParser,
  deepseekv3: deepseekV3ToolCallParser,
  deepseekv31: deepseekV31ToolCallParser,
  kimi_k2: kimiK2ToolCallParser,
  glm45: glm45ToolCallParser,
  glm: glm45ToolCallParser,
  glm47: glm47ToolCallParser,
  llama3: llama3ToolCallParser,
  mistral: mistralToolCallParser,
  pythonic: pythonicToolCallParser,
  "gpt-oss": gptOssToolCallParser,
} as const satisfies Record<string, ToolCallParser>;

const REASONING_PARSERS = {
  qwen3: qwen3ReasoningParser,
  "qwen3-thinking": qwen3ThinkingReasoningParser,
  "deepseek-r1": deepseekR1ReasoningParser,
  "deepseek-v3": deepseekV3ReasoningParser,
  glm45: glm45ReasoningParser,
  kimi: kimiReasoningParser,
  kimi_k2: kimiK2ReasoningParser,
  "gpt-oss": gptOssReasoningParser,
  mistral: mistralReasoningParser,
} as const satisfies Record<string, ReasoningParser>;

/** A tool-call parser name, as SGLang's `--tool-call-parser` spells it (aliases `qwen`, `glm`, `step3p5`). */
export type ToolCallParserName = keyof typeof TOOL_CALL_PARSERS;

/** A reasoning parser name, as SGLang's `--reasoning-parser` spells it. */
export type ReasoningParserName = keyof typeof REASONING_PARSERS;

/** Every registered tool-call parser name, aliases included, in registration order. */
export const toolCallParserNames: readonly ToolCallParserName[] = Object.freeze(
  Object.keys(TOOL_CALL_PARSERS) as ToolCallParserName[],
);

/** Every registered reasoning parser name, in registration order. */
export const reasoningParserNames: readonly ReasoningParserName[] = Object.freeze(
  Object.keys(REASONING_PARSERS) as ReasoningParserName[],
);

/**
 * The tool-call parser registered under an SGLang `--tool-call-parser` name. An alias returns the parser
 * it stands for (`getToolCallParser("qwen").name === "qwen25"`).
 *
 * @throws UnknownParserError listing the valid names.
 */
export function getToolCallParser(name: ToolCallParserName | (string & {})): ToolCallParser {
  if (!Object.hasOwn(TOOL_CALL_PARSERS, name)) {
    throw new UnknownParserError({
      parserKind: "tool_call",
      parserName: name,
      validNames: toolCallParserNames,
    });
  }
  return TOOL_CALL_PARSERS[name as ToolCallParserName];
}

/**
 * The reasoning parser registered under an SGLang `--reasoning-parser` name.
 *
 * @throws UnknownParserError listing the valid names.
 */
export function getReasoningParser(name: ReasoningParserName | (string & {})): ReasoningParser {
  if (!Object.hasOwn(REASONING_PARSERS, name)) {
    throw new UnknownParserError({
      parserKind: "reasoning",
      parserName: name,
      validNames: reasoningParserNames,
    });
  }
  return REASONING_PARSERS[name as ReasoningParserName];
}
