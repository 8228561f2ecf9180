import type { ToolCallParseInput, ToolCallParseResult, ToolCallParser } from "../contract/tool-call-parser";
import { CallCollector } from "../internal/call-collector";
import { splitHarmonyMessages } from "../internal/harmony-messages";
import { readArgumentsBody } from "../internal/read-json-body";

/**
 * Parses gpt-oss (Harmony) calls: a message with a recipient,
 * `<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>`.
 * The name is the recipient without its `functions.` namespace (other recipients, such as the built-in
 * `browser.search`, keep their full name and are then reported as unknown tools). An empty body means
 * `{}`. A call message that runs into the end of a stopped turn is accepted (`<|call|>` is a stop token
 * the caller may have stripped); in a cut-off turn it is truncated.
 *
 * Messages without a recipient are content: their bodies (final, commentary preambles, and analysis
 * when no reasoning parser took it out first) are kept, stretch by stretch, so nothing is dropped.
 */
function parseGptOssToolCalls({ text, finishReason }: ToolCallParseInput): ToolCallParseResult {
  const collector = new CallCollector(text);
  for (const item of splitHarmonyMessages(text)) {
    if (item.type === "text") continue;
    if (item.recipient === undefined) {
      // A plain message: keep only its body in the content.
      if (!item.headerComplete) continue;
      const bodyStart = item.end - item.body.length - (item.terminator?.length ?? 0);
      collector.cut(item.start, bodyStart);
      collector.cut(bodyStart + item.body.length, item.end);
      continue;
    }
    const name = item.recipient.replace(/^functions\./, "");
    const atEnd = item.end === text.length && item.terminator === undefined;
    if (atEnd && finishReason !== "stop") {
      collector.failure(
        "truncated_tool_call",
        `the generation was cut off (finish_reason=${finishReason}) before <|call|>`,
        item.start,
        item.end,
      );
      continue;
    }
    if (!item.headerComplete) {
      collector.failure("malformed_tool_call", "the call header has no <|message|>", item.start, item.end);
      continue;
    }
    const read = readArgumentsBody(item.body, { emptyAsObject: true });
    if (read.ok) collector.success(item.start, item.end, [{ name, arguments: read.arguments }]);
    else collector.failure("malformed_tool_call", read.reason, item.start, item.end);
  }
  return collector.finish();
}

/** SGLang `gpt-oss`: Harmony messages addressed `to=functions.NAME`. */
export const gptOssToolCallParser: ToolCallParser = { name: "gpt-oss", parse: parseGptOssToolCalls };
