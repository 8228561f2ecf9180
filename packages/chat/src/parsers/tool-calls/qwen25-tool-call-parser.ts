import type {
  ParsedToolCall,
  ToolCallFailure,
  ToolCallParseInput,
  ToolCallParseResult,
  ToolCallParser,
} from "../contract/tool-call-parser";
import { ContentBuilder } from "../internal/content-builder";
import { MarkerFinder } from "../internal/marker-finder";
import { jsonFailureReason } from "../internal/read-json-body";
import { callArgumentKeys, readJsonCall } from "../internal/read-json-call";
import { scanJsonValue } from "../internal/scan-json";

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";

/**
 * Parses Qwen2.5 / Qwen3 / Hermes calls: `<tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>`
 * (`parameters` accepted for `arguments`, as SGLang does), one block per call, any whitespace around the JSON. The JSON is read string-aware (like Python's
 * `raw_decode` in SGLang's `hermes` detector), so `</tool_call>` inside an argument string does not end
 * the call. A block whose JSON is complete but lacks `</tool_call>` at the very end of a stopped turn is
 * accepted; in a cut-off turn it is truncated.
 */
function parseQwen25ToolCalls({
  text,
  finishReason,
  parametersAlias,
}: ToolCallParseInput): ToolCallParseResult {
  const argumentKeys = callArgumentKeys(parametersAlias);
  const finder = new MarkerFinder(text);
  const builder = new ContentBuilder();
  const calls: ParsedToolCall[] = [];
  const failures: ToolCallFailure[] = [];
  let emitted = 0;
  let pos = 0;
  const blockEnd = (from: number): number => {
    const next = finder.nextOf([CLOSE, OPEN], from);
    if (next === undefined) return text.length;
    return next.needle === CLOSE ? next.index + CLOSE.length : next.index;
  };
  while (true) {
    const start = finder.next(OPEN, pos);
    if (start === -1) break;
    const callIndex = calls.length + failures.length;
    const jsonStart = skipWhitespace(text, start + OPEN.length);
    const scan = scanJsonValue(text, jsonStart);
    let end: number;
    let failure: Omit<ToolCallFailure, "callIndex" | "raw"> | undefined;
    let call: ParsedToolCall | undefined;
    if (!scan.ok) {
      end = scan.atEnd ? text.length : blockEnd(scan.offset);
      failure =
        scan.atEnd && finishReason !== "stop"
          ? { kind: "truncated_tool_call", reason: cutOffReason(finishReason) }
          : { kind: "malformed_tool_call", reason: jsonFailureReason(scan.reason, scan.offset - jsonStart) };
    } else {
      const after = skipWhitespace(text, scan.end);
      if (text.startsWith(CLOSE, after)) end = after + CLOSE.length;
      else if (after === text.length) end = after;
      else {
        end = blockEnd(after);
        failure = { kind: "malformed_tool_call", reason: `expected ${CLOSE} after the call's JSON` };
      }
      if (failure === undefined && end === text.length && !text.startsWith(CLOSE, after)) {
        if (finishReason !== "stop")
          failure = { kind: "truncated_tool_call", reason: cutOffReason(finishReason) };
      }
      if (failure === undefined) {
        const read = readJsonCall(text, scan.node, argumentKeys);
        if (read.ok) call = { callIndex, name: read.name, arguments: read.arguments };
        else failure = { kind: "malformed_tool_call", reason: read.reason };
      }
    }
    if (call !== undefined) {
      builder.text(text.slice(emitted, start));
      builder.cut();
      emitted = end;
      calls.push(call);
    } else if (failure !== undefined) {
      failures.push({ callIndex, ...failure, raw: text.slice(start, end) });
    }
    pos = end;
  }
  builder.text(text.slice(emitted));
  return { content: builder.build(), calls, failures };
}

function cutOffReason(finishReason: string): string {
  return `the generation was cut off (finish_reason=${finishReason}) before ${CLOSE}`;
}

function skipWhitespace(text: string, from: number): number {
  let pos = from;
  while (pos < text.length) {
    const c = text.charCodeAt(pos);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) pos++;
    else break;
  }
  return pos;
}

/** SGLang `qwen25` (alias `qwen`): Qwen2.5 and Qwen3 `<tool_call>` JSON blocks. */
export const qwen25ToolCallParser: ToolCallParser = { name: "qwen25", parse: parseQwen25ToolCalls };

/** SGLang `hermes`: the same `<tool_call>` JSON blocks (this parser is string-aware for both names). */
export const hermesToolCallParser: ToolCallParser = { name: "hermes", parse: parseQwen25ToolCalls };
