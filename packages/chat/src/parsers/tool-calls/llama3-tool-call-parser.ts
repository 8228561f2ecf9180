import type { ToolCallParseInput, ToolCallParseResult, ToolCallParser } from "../contract/tool-call-parser";
import { CallCollector, skipWhitespace } from "../internal/call-collector";
import { MarkerFinder } from "../internal/marker-finder";
import { jsonFailureReason } from "../internal/read-json-body";
import { JSON_CALL_ARGUMENT_KEYS } from "../internal/read-json-call";
import { type JsonNode, scanJsonValue } from "../internal/scan-json";

const TAG = "<|python_tag|>";
const ARGUMENT_KEYS = JSON_CALL_ARGUMENT_KEYS;
const CALL_START = /\{\s*"name"\s*:/y;

/** True for `{"name": ..., "parameters"|"arguments": ...}` — what an untagged call must look like. */
function isCallShaped(node: JsonNode): boolean {
  const isCall = (item: JsonNode) =>
    item.kind === "object" &&
    item.members.some((member) => member.key === "name") &&
    item.members.some((member) => ARGUMENT_KEYS.includes(member.key));
  return node.kind === "array" ? node.items.length > 0 && node.items.every(isCall) : isCall(node);
}

/**
 * Parses Llama 3.1/3.2/3.3 JSON calls: `<|python_tag|>{"name": "f", "parameters": {...}}`, several calls
 * separated by `;`. As in SGLang, the tag is optional when the content starts with a call object (or a
 * list of them); `parameters` and `arguments` are both accepted. There is no closing marker: a call ends
 * where its JSON ends, and what follows the last call is content.
 */
function parseLlama3ToolCalls({ text, finishReason }: ToolCallParseInput): ToolCallParseResult {
  const collector = new CallCollector(text);
  const finder = new MarkerFinder(text);
  const nextTagOrEnd = (from: number) => {
    const next = finder.next(TAG, from);
    return next === -1 ? text.length : next;
  };

  /** Reads `;`-separated call JSON from `from`; `tagStart` is where the tag was (or -1 when untagged). */
  const readSequence = (tagStart: number, from: number): number => {
    let pos = from;
    let count = 0;
    while (true) {
      const jsonStart = skipWhitespace(text, pos);
      const blockStart = count === 0 && tagStart !== -1 ? tagStart : jsonStart;
      const char = text[jsonStart];
      if (char !== "{" && char !== "[") {
        if (tagStart !== -1 && count === 0) {
          const end = nextTagOrEnd(jsonStart);
          if (jsonStart >= text.length && finishReason !== "stop") {
            collector.failure("truncated_tool_call", cutOff(finishReason), tagStart, end);
          } else {
            collector.failure(
              "malformed_tool_call",
              `expected a JSON call object after ${TAG}`,
              tagStart,
              end,
            );
          }
          return end;
        }
        return pos;
      }
      const scan = scanJsonValue(text, jsonStart);
      if (!scan.ok) {
        CALL_START.lastIndex = jsonStart;
        if (tagStart === -1 && count === 0 && !CALL_START.test(text)) return pos;
        const end = scan.atEnd ? text.length : nextTagOrEnd(scan.offset);
        if (scan.atEnd && finishReason !== "stop") {
          collector.failure("truncated_tool_call", cutOff(finishReason), blockStart, end);
        } else {
          collector.failure(
            "malformed_tool_call",
            jsonFailureReason(scan.reason, scan.offset - jsonStart),
            blockStart,
            end,
          );
        }
        return end;
      }
      if (tagStart === -1 && count === 0 && !isCallShaped(scan.node)) return pos;
      // The `;` separator (or the tag) before this call leaves the content with it.
      collector.swallow(pos, blockStart);
      collector.jsonCalls(scan.node, blockStart, scan.end, ARGUMENT_KEYS);
      count++;
      pos = scan.end;
      const after = skipWhitespace(text, pos);
      if (text[after] !== ";") return pos;
      collector.swallow(pos, after + 1);
      pos = after + 1;
    }
  };

  let pos = 0;
  const first = skipWhitespace(text, 0);
  if (!text.startsWith(TAG, first)) pos = readSequence(-1, first);
  while (true) {
    const tag = finder.next(TAG, pos);
    if (tag === -1) break;
    pos = readSequence(tag, tag + TAG.length);
    if (pos <= tag) pos = tag + TAG.length;
  }
  return collector.finish();
}

function cutOff(finishReason: string): string {
  return `the generation was cut off (finish_reason=${finishReason}) inside the call`;
}

/** SGLang `llama3`: Llama 3.1/3.2/3.3 JSON calls after `<|python_tag|>` (or at the start of the text). */
export const llama3ToolCallParser: ToolCallParser = { name: "llama3", parse: parseLlama3ToolCalls };
