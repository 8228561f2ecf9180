import type {
  GenerationFinishReason,
  ToolCallParseInput,
  ToolCallParseResult,
  ToolCallParser,
} from "../contract/tool-call-parser";
import { CallCollector, skipWhitespace } from "../internal/call-collector";
import { MarkerFinder } from "../internal/marker-finder";
import { jsonFailureReason } from "../internal/read-json-body";
import { callArgumentKeys, readJsonArguments } from "../internal/read-json-call";
import { scanJsonValue } from "../internal/scan-json";

const TOOL_CALLS = "[TOOL_CALLS]";
const ARGS = "[ARGS]";
const CALL_ID = "[CALL_ID]";

/**
 * Parses Mistral calls after the `[TOOL_CALLS]` control token, in either form:
 * - JSON list (Mistral 7B v0.3, Nemo): `[TOOL_CALLS] [{"name": "f", "arguments": {...}}, …]` (a single
 *   object is accepted too);
 * - compact (newer tokenizers): `[TOOL_CALLS]f[ARGS]{...}`, one `[TOOL_CALLS]` per call, optionally
 *   `[TOOL_CALLS]f[CALL_ID]abc123xyz[ARGS]{...}`.
 * A call ends where its JSON ends; what follows is content.
 */
function parseMistralToolCalls({
  text,
  finishReason,
  parametersAlias,
}: ToolCallParseInput): ToolCallParseResult {
  const argumentKeys = callArgumentKeys(parametersAlias);
  const collector = new CallCollector(text);
  const finder = new MarkerFinder(text);
  let pos = 0;
  while (true) {
    const start = finder.next(TOOL_CALLS, pos);
    if (start === -1) break;
    const next = finder.next(TOOL_CALLS, start + TOOL_CALLS.length);
    const blockLimit = next === -1 ? text.length : next;
    const jsonStart = skipWhitespace(text, start + TOOL_CALLS.length);
    const char = text[jsonStart];
    pos =
      char === "[" || char === "{"
        ? readJsonForm(text, finishReason, collector, start, jsonStart, blockLimit, argumentKeys)
        : readCompactForm(text, finishReason, collector, finder, start, blockLimit);
  }
  return collector.finish();
}

function readJsonForm(
  text: string,
  finishReason: GenerationFinishReason,
  collector: CallCollector,
  start: number,
  jsonStart: number,
  blockLimit: number,
  argumentKeys: readonly string[],
): number {
  const scan = scanJsonValue(text, jsonStart);
  if (!scan.ok) {
    const truncated = scan.atEnd && finishReason !== "stop";
    collector.failure(
      truncated ? "truncated_tool_call" : "malformed_tool_call",
      truncated ? cutOff(finishReason) : jsonFailureReason(scan.reason, scan.offset - jsonStart),
      start,
      scan.atEnd ? text.length : blockLimit,
    );
    return scan.atEnd ? text.length : blockLimit;
  }
  collector.jsonCalls(scan.node, start, scan.end, argumentKeys);
  return scan.end;
}

function readCompactForm(
  text: string,
  finishReason: GenerationFinishReason,
  collector: CallCollector,
  finder: MarkerFinder,
  start: number,
  blockLimit: number,
): number {
  const nameStart = start + TOOL_CALLS.length;
  const argsAt = finder.next(ARGS, nameStart);
  if (argsAt === -1 || argsAt > blockLimit) {
    const cut = blockLimit === text.length && finishReason !== "stop";
    collector.failure(
      cut ? "truncated_tool_call" : "malformed_tool_call",
      cut ? cutOff(finishReason) : `expected a JSON list or NAME${ARGS}{...} after ${TOOL_CALLS}`,
      start,
      blockLimit,
    );
    return blockLimit;
  }
  const header = text.slice(nameStart, argsAt);
  const idAt = header.indexOf(CALL_ID);
  const name = (idAt === -1 ? header : header.slice(0, idAt)).trim();
  if (name === "" || /\s/.test(name)) {
    collector.failure(
      "malformed_tool_call",
      `invalid function name ${JSON.stringify(name)}`,
      start,
      blockLimit,
    );
    return blockLimit;
  }
  const jsonStart = skipWhitespace(text, argsAt + ARGS.length);
  const scan = scanJsonValue(text, jsonStart, blockLimit);
  if (!scan.ok) {
    const truncated = scan.atEnd && blockLimit === text.length && finishReason !== "stop";
    collector.failure(
      truncated ? "truncated_tool_call" : "malformed_tool_call",
      truncated ? cutOff(finishReason) : jsonFailureReason(scan.reason, scan.offset - jsonStart),
      start,
      blockLimit,
    );
    return blockLimit;
  }
  const read = readJsonArguments(text, scan.node);
  if (read.ok) collector.success(start, scan.end, [{ name, arguments: read.arguments }]);
  else collector.failure("malformed_tool_call", read.reason, start, scan.end);
  return scan.end;
}

function cutOff(finishReason: string): string {
  return `the generation was cut off (finish_reason=${finishReason}) inside the call`;
}

/** SGLang `mistral`: `[TOOL_CALLS]` followed by a JSON list of calls or by compact `name[ARGS]{...}` calls. */
export const mistralToolCallParser: ToolCallParser = { name: "mistral", parse: parseMistralToolCalls };
