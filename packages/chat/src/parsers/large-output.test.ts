import { describe, expect, it } from "vitest";
import { weatherTools } from "./__fixtures__/weather-tools";
import { getReasoningParser, getToolCallParser, type ToolCallParserName } from "./parser-registry";

/**
 * 100k-character outputs: many calls, and many unmatched markers. These check that every parser stays
 * correct at that size (no stack overflow, no lost call); speed is measured by the package bench, not here.
 */
const SIZE = 100_000;
const repeat = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length));

const calls: Record<Exclude<ToolCallParserName, "qwen" | "glm" | "step3p5">, [string, string]> = {
  qwen25: ['<tool_call>\n{"name": "get_time", "arguments": {"tz": "UTC"}}\n</tool_call>\n', "<tool_call>"],
  hermes: ['<tool_call>{"name": "get_time", "arguments": {"tz": "UTC"}}</tool_call>', '<tool_call>{"a'],
  qwen3_coder: [
    "<tool_call>\n<function=get_time>\n<parameter=tz>\nUTC\n</parameter>\n</function>\n</tool_call>\n",
    "<tool_call>",
  ],
  deepseekv3: [
    '<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{"tz": "UTC"}\n```<｜tool▁call▁end｜>',
    "<｜tool▁call▁begin｜>",
  ],
  deepseekv31: [
    '<｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"tz": "UTC"}<｜tool▁call▁end｜>',
    "<｜tool▁call▁begin｜>",
  ],
  kimi_k2: [
    '<|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{"tz": "UTC"}<|tool_call_end|>',
    "<|tool_call_begin|>",
  ],
  glm45: [
    "<tool_call>get_time\n<arg_key>tz</arg_key>\n<arg_value>UTC</arg_value>\n</tool_call>\n",
    "<tool_call>f<arg_key>",
  ],
  glm47: ["<tool_call>get_time<arg_key>tz</arg_key><arg_value>UTC</arg_value></tool_call>", "<tool_call>"],
  llama3: ['<|python_tag|>{"name": "get_time", "parameters": {"tz": "UTC"}}\n', "<|python_tag|>"],
  mistral: ['[TOOL_CALLS]get_time[ARGS]{"tz": "UTC"}', "[TOOL_CALLS]"],
  pythonic: ['[get_time(tz="UTC")] ', "[f(x"],
  "gpt-oss": [
    '<|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"tz":"UTC"}<|call|>',
    "<|start|>assistant to=functions.f",
  ],
};

describe("100k-character outputs", () => {
  it.each(Object.entries(calls))(
    "%s should keep every call, and keep broken markers as reported content",
    (name, [unit, broken]) => {
      const parser = getToolCallParser(name);
      const count = Math.ceil(SIZE / unit.length);
      const many = parser.parse({ text: repeat(unit), tools: weatherTools, finishReason: "stop" });
      expect(many.calls).toHaveLength(count);
      expect(many.failures).toEqual([]);
      expect(new Set(many.calls.map((call) => call.arguments))).toEqual(new Set(['{"tz":"UTC"}']));

      const noise = parser.parse({ text: repeat(broken), tools: weatherTools, finishReason: "length" });
      expect(noise.calls).toEqual([]);
      expect(noise.content.length).toBeGreaterThan(SIZE * 0.9);
      expect(noise.failures.length).toBeGreaterThan(0);
    },
  );

  it("should split reasoning of 100k characters", () => {
    const body = repeat("think <tool_call> more ");
    const result = getReasoningParser("qwen3").parse({
      text: `<think>${body}</think>done`,
      finishReason: "stop",
    });
    expect(result).toEqual({ reasoning: body.trim(), content: "done", truncated: false });
  });
});
