import type { ToolCallParser } from "../contract/tool-call-parser";
import { type BlockParse, parseDelimitedToolCalls } from "../internal/parse-delimited-tool-calls";
import { readArgumentsBody } from "../internal/read-json-body";

const ARGUMENT_BEGIN = "<|tool_call_argument_begin|>";
const NATIVE_ID = /^(?:functions\.)?(.+):(\d+)$/s;

/**
 * Kimi-K2 block body: `functions.NAME:IDX<|tool_call_argument_begin|>{...}`. The id is kept verbatim as
 * the call's id when it has the `:IDX` suffix (Kimi's template writes it back into history, so it must
 * survive the round trip); the name is the id without `functions.` and `:IDX`.
 */
function parseKimiK2Block(body: string): BlockParse {
  const sep = body.indexOf(ARGUMENT_BEGIN);
  if (sep === -1) return { ok: false, reason: `no ${ARGUMENT_BEGIN} in the call` };
  const id = body.slice(0, sep).trim();
  const match = NATIVE_ID.exec(id);
  const name = match !== null ? match[1]! : id.replace(/^functions\./, "");
  if (name.trim() === "") return { ok: false, reason: "the call has no function name" };
  const read = readArgumentsBody(body.slice(sep + ARGUMENT_BEGIN.length));
  if (!read.ok) return read;
  return {
    ok: true,
    calls: [
      match !== null
        ? { name, arguments: read.arguments, nativeId: id }
        : { name, arguments: read.arguments },
    ],
  };
}

/**
 * SGLang `kimi_k2`: `<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0
 * <|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>`. The
 * singular `<|tool_call_section_begin|>` spelling some checkpoints emit is accepted too.
 */
export const kimiK2ToolCallParser: ToolCallParser = {
  name: "kimi_k2",
  parse: ({ text, finishReason }) =>
    parseDelimitedToolCalls(text, finishReason, {
      open: "<|tool_call_begin|>",
      close: "<|tool_call_end|>",
      sectionOpen: ["<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"],
      sectionClose: ["<|tool_calls_section_end|>", "<|tool_call_section_end|>"],
      parseBlock: parseKimiK2Block,
    }),
};
