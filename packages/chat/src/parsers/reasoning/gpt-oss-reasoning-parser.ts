import type {
  ReasoningParseInput,
  ReasoningParseResult,
  ReasoningParser,
} from "../contract/reasoning-parser";
import { splitHarmonyMessages } from "../internal/harmony-messages";

/**
 * Splits gpt-oss (Harmony) output: `analysis`-channel message bodies are the reasoning (several are
 * joined with `"\n"`); `final` and commentary-preamble bodies are the content; messages addressed to a
 * recipient (tool calls) are passed on verbatim, markers included, for the `gpt-oss` tool-call parser.
 * Text outside any message is kept in the content. Reasoning is truncated when a cut-off turn ends
 * inside an analysis message. Follows SGLang's `GptOssDetector` (always in reasoning mode).
 */
function parseGptOssReasoning({ text, finishReason }: ReasoningParseInput): ReasoningParseResult {
  const reasoning: string[] = [];
  const content: string[] = [];
  let sawAnalysis = false;
  let truncated = false;
  for (const item of splitHarmonyMessages(text)) {
    if (item.type === "text") {
      content.push(text.slice(item.start, item.end));
    } else if (item.recipient !== undefined || !item.headerComplete) {
      content.push(text.slice(item.start, item.end));
    } else if (item.channel === "analysis") {
      sawAnalysis = true;
      reasoning.push(item.body.trim());
      if (item.terminator === undefined && item.end === text.length && finishReason !== "stop")
        truncated = true;
    } else {
      content.push(item.body);
    }
  }
  return {
    reasoning: sawAnalysis ? reasoning.filter((part) => part !== "").join("\n") : undefined,
    content: content.join("\n"),
    truncated,
  };
}

/** SGLang `gpt-oss`: the Harmony analysis channel is reasoning, the final channel is content. */
export const gptOssReasoningParser: ReasoningParser = {
  name: "gpt-oss",
  alwaysForcesReasoning: true,
  parse: parseGptOssReasoning,
  promptOpensReasoning: () => true,
};
