import type { StrictJsonValue } from "../../canonical/strict-json";
import type { FunctionTool } from "../../messages/function-tool";
import type { ToolCallParser } from "../contract/tool-call-parser";
import { buildArguments } from "../internal/build-arguments";
import { convertParameterValue, findParameterSchema } from "../internal/convert-parameter-value";
import { MarkerFinder } from "../internal/marker-finder";
import {
  type BlockCall,
  type BlockParse,
  parseDelimitedToolCalls,
} from "../internal/parse-delimited-tool-calls";

const FUNCTION_OPEN = "<function=";
const FUNCTION_CLOSE = "</function>";
const PARAMETER_OPEN = "<parameter=";
const PARAMETER_CLOSE = "</parameter>";

/**
 * Qwen3-Coder block body: one or more `<function=NAME>` … `</function>` holding
 * `<parameter=KEY>\nVALUE\n</parameter>` entries. As in SGLang, one leading and one trailing `\n` are
 * stripped from each value, a value also ends at the next `<parameter=` or at `</function>`, and a
 * missing `</function>` at the end of the block is tolerated. Values are typed by the tool's schema;
 * parameters without a schema stay strings.
 */
function parseQwen3CoderBlock(body: string, tools: readonly FunctionTool[]): BlockParse {
  const calls: BlockCall[] = [];
  let pos = 0;
  while (true) {
    pos = skipWhitespace(body, pos);
    if (pos >= body.length) break;
    if (!body.startsWith(FUNCTION_OPEN, pos)) return { ok: false, reason: `expected ${FUNCTION_OPEN}NAME>` };
    const nameEnd = body.indexOf(">", pos);
    if (nameEnd === -1) return { ok: false, reason: `unclosed ${FUNCTION_OPEN}` };
    const name = body.slice(pos + FUNCTION_OPEN.length, nameEnd).trim();
    if (name === "") return { ok: false, reason: "the call has no function name" };
    const functionEnd = body.indexOf(FUNCTION_CLOSE, nameEnd);
    const inner = body.slice(nameEnd + 1, functionEnd === -1 ? body.length : functionEnd);
    const values = readParameters(inner, name, tools);
    if (!values.ok) return values;
    const built = buildArguments(values.values);
    if (!built.ok) return built;
    calls.push({ name, arguments: built.arguments });
    pos = functionEnd === -1 ? body.length : functionEnd + FUNCTION_CLOSE.length;
  }
  if (calls.length === 0) return { ok: false, reason: `no ${FUNCTION_OPEN}NAME> in the block` };
  return { ok: true, calls };
}

function readParameters(
  inner: string,
  name: string,
  tools: readonly FunctionTool[],
): { ok: true; values: Record<string, StrictJsonValue> } | { ok: false; reason: string } {
  const values: Record<string, StrictJsonValue> = Object.create(null);
  const finder = new MarkerFinder(inner);
  let pos = 0;
  while (true) {
    pos = skipWhitespace(inner, pos);
    if (pos >= inner.length) return { ok: true, values };
    if (!inner.startsWith(PARAMETER_OPEN, pos))
      return { ok: false, reason: `expected ${PARAMETER_OPEN}KEY>` };
    const keyEnd = inner.indexOf(">", pos);
    if (keyEnd === -1) return { ok: false, reason: `unclosed ${PARAMETER_OPEN}` };
    const key = inner.slice(pos + PARAMETER_OPEN.length, keyEnd).trim();
    if (Object.hasOwn(values, key))
      return { ok: false, reason: `duplicate parameter ${JSON.stringify(key)}` };
    const close = finder.next(PARAMETER_CLOSE, keyEnd);
    const nextOpen = finder.next(PARAMETER_OPEN, keyEnd);
    let valueEnd = inner.length;
    let next = inner.length;
    if (close !== -1 && (nextOpen === -1 || close < nextOpen)) {
      valueEnd = close;
      next = close + PARAMETER_CLOSE.length;
    } else if (nextOpen !== -1) {
      valueEnd = nextOpen;
      next = nextOpen;
    }
    let raw = inner.slice(keyEnd + 1, valueEnd);
    if (raw.startsWith("\n")) raw = raw.slice(1);
    if (raw.endsWith("\n")) raw = raw.slice(0, -1);
    values[key] = convertParameterValue({
      raw,
      schema: findParameterSchema(tools, name, key),
      untyped: "string",
    });
    pos = next;
  }
}

function skipWhitespace(text: string, from: number): number {
  let pos = from;
  while (pos < text.length && /\s/.test(text[pos]!)) pos++;
  return pos;
}

/**
 * SGLang `qwen3_coder` (Qwen3-Coder, Qwen3.5; alias `step3p5`): `<tool_call>\n<function=get_weather>\n
 * <parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>`, values typed by the tool's JSON
 * schema (integer, number, boolean, object, array, null, string).
 */
export const qwen3CoderToolCallParser: ToolCallParser = {
  name: "qwen3_coder",
  parse: ({ text, finishReason, tools }) =>
    parseDelimitedToolCalls(text, finishReason, {
      open: "<tool_call>",
      close: "</tool_call>",
      parseBlock: (body) => parseQwen3CoderBlock(body, tools),
    }),
};
