import type { StrictJsonValue } from "../../canonical/strict-json";
import type { FunctionTool } from "../../messages/function-tool";
import type { ToolCallParseInput, ToolCallParser } from "../contract/tool-call-parser";
import { buildArguments } from "../internal/build-arguments";
import { convertParameterValue, findParameterSchema } from "../internal/convert-parameter-value";
import { type BlockParse, parseDelimitedToolCalls } from "../internal/parse-delimited-tool-calls";

const KEY_OPEN = "<arg_key>";
const KEY_CLOSE = "</arg_key>";
const VALUE_OPEN = "<arg_value>";
const VALUE_CLOSE = "</arg_value>";

/**
 * GLM block body: `NAME` then `<arg_key>K</arg_key><arg_value>V</arg_value>` pairs, with or without
 * newlines between them (GLM-4.5/4.6 write newlines, GLM-4.7/5 do not; both are read the same way).
 * Values are typed by the tool's schema ({@link convertParameterValue}, untyped values tried as JSON).
 */
function parseGlmBlock(body: string, tools: readonly FunctionTool[]): BlockParse {
  const firstKey = body.indexOf(KEY_OPEN);
  const name = (firstKey === -1 ? body : body.slice(0, firstKey)).trim();
  if (name === "") return { ok: false, reason: "the call has no function name" };
  if (/[<>\n]/.test(name))
    return { ok: false, reason: `unexpected text in the function name ${JSON.stringify(name)}` };
  const values: Record<string, StrictJsonValue> = Object.create(null);
  let pos = firstKey === -1 ? body.length : firstKey;
  while (true) {
    pos = skipWhitespace(body, pos);
    if (pos >= body.length) break;
    if (!body.startsWith(KEY_OPEN, pos)) return { ok: false, reason: `expected ${KEY_OPEN}` };
    const keyEnd = body.indexOf(KEY_CLOSE, pos);
    if (keyEnd === -1) return { ok: false, reason: `unclosed ${KEY_OPEN}` };
    const key = body.slice(pos + KEY_OPEN.length, keyEnd).trim();
    pos = skipWhitespace(body, keyEnd + KEY_CLOSE.length);
    if (!body.startsWith(VALUE_OPEN, pos))
      return { ok: false, reason: `expected ${VALUE_OPEN} after key ${JSON.stringify(key)}` };
    const valueEnd = body.indexOf(VALUE_CLOSE, pos);
    if (valueEnd === -1) return { ok: false, reason: `unclosed ${VALUE_OPEN} of key ${JSON.stringify(key)}` };
    if (Object.hasOwn(values, key)) return { ok: false, reason: `duplicate key ${JSON.stringify(key)}` };
    const raw = body.slice(pos + VALUE_OPEN.length, valueEnd);
    values[key] = convertParameterValue({
      raw,
      schema: findParameterSchema(tools, name, key),
      untyped: "json",
    });
    pos = valueEnd + VALUE_CLOSE.length;
  }
  const built = buildArguments(values);
  return built.ok ? { ok: true, calls: [{ name, arguments: built.arguments }] } : built;
}

function skipWhitespace(text: string, from: number): number {
  let pos = from;
  while (pos < text.length && /\s/.test(text[pos]!)) pos++;
  return pos;
}

function parseGlm({ text, finishReason, tools }: ToolCallParseInput) {
  return parseDelimitedToolCalls(text, finishReason, {
    open: "<tool_call>",
    close: "</tool_call>",
    parseBlock: (body) => parseGlmBlock(body, tools),
  });
}

/**
 * SGLang `glm45` (alias `glm`, GLM-4.5/4.6): `<tool_call>get_weather\n<arg_key>city</arg_key>\n
 * <arg_value>Paris</arg_value>\n</tool_call>`.
 */
export const glm45ToolCallParser: ToolCallParser = { name: "glm45", parse: parseGlm };

/** SGLang `glm47` (GLM-4.7/5): `<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>`. */
export const glm47ToolCallParser: ToolCallParser = { name: "glm47", parse: parseGlm };
