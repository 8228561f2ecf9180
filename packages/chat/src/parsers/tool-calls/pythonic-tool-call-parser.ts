import type { ToolCallParseInput, ToolCallParseResult, ToolCallParser } from "../contract/tool-call-parser";
import { buildArguments } from "../internal/build-arguments";
import { CallCollector, skipWhitespace } from "../internal/call-collector";
import { MarkerFinder } from "../internal/marker-finder";
import { scanPythonCallList } from "../internal/python-literal";

const CANDIDATE = /\[\s*[\p{L}_][\p{L}\p{N}_.]*\s*\(/uy;
const WRAP_START = "<|python_start|>";
const WRAP_END = "<|python_end|>";

/** Cheap pre-check before the regex: a call list's `[` is followed by a name or whitespace. */
function mayStartName(code: number): boolean {
  if (code >= 0x80) return true;
  return (
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    code === 0x5f ||
    code === 0x20 ||
    code === 0x0a ||
    code === 0x09
  );
}

/**
 * Parses pythonic calls (Llama 3.2/3.3/4): a Python list of calls with keyword literal arguments,
 * `[get_weather(city="Paris"), get_time(tz="UTC")]`, optionally wrapped in Llama 4's
 * `<|python_start|>…<|python_end|>`. SGLang requires the whole output to be the list; here the list may
 * sit anywhere, with text around it kept as content. Anything that starts like a call list
 * (`[name(`) but does not parse is reported, never silently dropped.
 */
function parsePythonicToolCalls({ text, finishReason }: ToolCallParseInput): ToolCallParseResult {
  const collector = new CallCollector(text);
  const finder = new MarkerFinder(text);
  let pos = 0;
  while (true) {
    const bracket = finder.next("[", pos);
    if (bracket === -1) break;
    CANDIDATE.lastIndex = bracket;
    if (!mayStartName(text.charCodeAt(bracket + 1)) || !CANDIDATE.test(text)) {
      pos = bracket + 1;
      continue;
    }
    const scan = scanPythonCallList(text, bracket);
    if (!scan.ok) {
      const truncated = scan.atEnd && finishReason !== "stop";
      const close = scan.atEnd ? -1 : finder.next("]", scan.offset);
      const end = close === -1 ? text.length : close + 1;
      collector.failure(
        truncated ? "truncated_tool_call" : "malformed_tool_call",
        truncated
          ? `the generation was cut off (finish_reason=${finishReason}) inside the call list`
          : `invalid pythonic call list: ${scan.reason} at character ${scan.offset - bracket}`,
        bracket,
        end,
      );
      pos = end;
      continue;
    }
    const calls = [];
    let failed: string | undefined;
    for (const call of scan.value) {
      const built = buildArguments(call.arguments);
      if (!built.ok) {
        failed = `${call.name}: ${built.reason}`;
        break;
      }
      calls.push({ name: call.name, arguments: built.arguments });
    }
    if (failed !== undefined) {
      collector.failure("malformed_tool_call", failed, bracket, scan.end);
    } else {
      let before = bracket;
      while (before > 0 && /\s/.test(text[before - 1]!)) before--;
      const wrapped = before >= WRAP_START.length && text.startsWith(WRAP_START, before - WRAP_START.length);
      const start = wrapped ? before - WRAP_START.length : bracket;
      const after = skipWhitespace(text, scan.end);
      const end = text.startsWith(WRAP_END, after) ? after + WRAP_END.length : scan.end;
      collector.success(start, end, calls);
    }
    pos = scan.end;
  }
  return collector.finish();
}

/** SGLang `pythonic`: `[get_weather(city="Paris"), get_time(tz="UTC")]`. */
export const pythonicToolCallParser: ToolCallParser = { name: "pythonic", parse: parsePythonicToolCalls };
