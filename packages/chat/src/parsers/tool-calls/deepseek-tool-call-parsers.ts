import type { ToolCallParser } from "../contract/tool-call-parser";
import { type BlockParse, parseDelimitedToolCalls } from "../internal/parse-delimited-tool-calls";
import { readArgumentsBody } from "../internal/read-json-body";

const CALLS_BEGIN = "<｜tool▁calls▁begin｜>";
const CALLS_END = "<｜tool▁calls▁end｜>";
const CALL_BEGIN = "<｜tool▁call▁begin｜>";
const CALL_END = "<｜tool▁call▁end｜>";
const SEP = "<｜tool▁sep｜>";

/**
 * DeepSeek-V3 block body: `function<｜tool▁sep｜>NAME\n```json\n{...}\n```` — the call type, the
 * name on its own line, then the arguments in a (json) code fence. A missing fence is tolerated.
 */
function parseDeepSeekV3Block(body: string): BlockParse {
  const sep = body.indexOf(SEP);
  if (sep === -1) return { ok: false, reason: `no ${SEP} in the call` };
  const rest = body.slice(sep + SEP.length);
  const newline = rest.indexOf("\n");
  const name = (newline === -1 ? rest : rest.slice(0, newline)).trim();
  if (name === "") return { ok: false, reason: "the call has no function name" };
  let json = newline === -1 ? "" : rest.slice(newline + 1).trim();
  if (json.startsWith("```")) {
    const fenceEnd = json.indexOf("\n");
    if (fenceEnd === -1 || !json.endsWith("```") || json.length < fenceEnd + 4) {
      return { ok: false, reason: "unterminated ``` code fence around the arguments" };
    }
    json = json.slice(fenceEnd + 1, -3);
  }
  const read = readArgumentsBody(json);
  return read.ok ? { ok: true, calls: [{ name, arguments: read.arguments }] } : read;
}

/** DeepSeek-V3.1 block body: `NAME<｜tool▁sep｜>{...}` — no type and no code fence. */
function parseDeepSeekV31Block(body: string): BlockParse {
  const sep = body.indexOf(SEP);
  if (sep === -1) return { ok: false, reason: `no ${SEP} in the call` };
  const name = body.slice(0, sep).trim();
  if (name === "") return { ok: false, reason: "the call has no function name" };
  const read = readArgumentsBody(body.slice(sep + SEP.length));
  return read.ok ? { ok: true, calls: [{ name, arguments: read.arguments }] } : read;
}

/**
 * SGLang `deepseekv3`: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n
 * ```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>`.
 */
export const deepseekV3ToolCallParser: ToolCallParser = {
  name: "deepseekv3",
  parse: ({ text, finishReason }) =>
    parseDelimitedToolCalls(text, finishReason, {
      open: CALL_BEGIN,
      close: CALL_END,
      sectionOpen: [CALLS_BEGIN],
      sectionClose: [CALLS_END],
      parseBlock: parseDeepSeekV3Block,
    }),
};

/**
 * SGLang `deepseekv31` (DeepSeek-V3.1, V3.2-Exp): `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather
 * <｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`.
 */
export const deepseekV31ToolCallParser: ToolCallParser = {
  name: "deepseekv31",
  parse: ({ text, finishReason }) =>
    parseDelimitedToolCalls(text, finishReason, {
      open: CALL_BEGIN,
      close: CALL_END,
      sectionOpen: [CALLS_BEGIN],
      sectionClose: [CALLS_END],
      parseBlock: parseDeepSeekV31Block,
    }),
};
