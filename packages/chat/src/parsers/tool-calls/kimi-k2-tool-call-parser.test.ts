import { describe, expect, it } from "vitest";
import { weatherTools } from "../__fixtures__/weather-tools";
import { parseAssistantOutput } from "../parse-assistant-output";
import { kimiK2ToolCallParser } from "./kimi-k2-tool-call-parser";

const BEGIN = "<|tool_calls_section_begin|>";
const END = "<|tool_calls_section_end|>";
const call = (id: string, json: string) =>
  `<|tool_call_begin|>${id}<|tool_call_argument_begin|>${json}<|tool_call_end|>`;
const parse = (text: string, finishReason: "stop" | "length" = "stop") =>
  kimiK2ToolCallParser.parse({ text, tools: weatherTools, finishReason });

describe("kimi_k2 tool-call parser", () => {
  it("should parse a single call and keep its native id", () => {
    expect(parse(`${BEGIN}${call("functions.get_weather:0", '{"city": "Paris"}')}${END}`)).toEqual({
      content: "",
      calls: [
        {
          callIndex: 0,
          name: "get_weather",
          arguments: '{"city":"Paris"}',
          nativeId: "functions.get_weather:0",
        },
      ],
      failures: [],
    });
  });

  it("should keep several calls in order with text around them", () => {
    const text = `Sure.${BEGIN}${call("functions.get_weather:0", '{"city": "Paris"}')}\n${call("functions.get_time:1", '{"tz": "UTC"}')}${END}after`;
    expect(parse(text)).toEqual({
      content: "Sure.\nafter",
      calls: [
        {
          callIndex: 0,
          name: "get_weather",
          arguments: '{"city":"Paris"}',
          nativeId: "functions.get_weather:0",
        },
        { callIndex: 1, name: "get_time", arguments: '{"tz":"UTC"}', nativeId: "functions.get_time:1" },
      ],
      failures: [],
    });
  });

  it("should accept a bare name:idx id and a name without index", () => {
    const text = `${BEGIN}${call("get_time:3", "{}")}${call("get_time", "{}")}${END}`;
    expect(parse(text).calls).toEqual([
      { callIndex: 0, name: "get_time", arguments: "{}", nativeId: "get_time:3" },
      { callIndex: 1, name: "get_time", arguments: "{}" },
    ]);
  });

  it("should keep text between calls and accept the singular section spelling", () => {
    const text = `<|tool_call_section_begin|>${call("functions.get_time:0", "{}")} then ${call("functions.get_time:1", "{}")}<|tool_call_section_end|>`;
    expect(parse(text).content).toBe("then");
  });

  it("should report malformed JSON and keep the other call", () => {
    const bad = call("functions.get_weather:0", "{'city': 'Paris'}");
    expect(parse(`${BEGIN}${bad}${call("functions.get_time:1", "{}")}${END}`)).toEqual({
      content: bad,
      calls: [{ callIndex: 1, name: "get_time", arguments: "{}", nativeId: "functions.get_time:1" }],
      failures: [
        {
          callIndex: 0,
          kind: "malformed_tool_call",
          reason: "invalid JSON: expected a string key at character 1 of the JSON",
          raw: bad,
        },
      ],
    });
  });

  it("should report a call cut off by finish_reason=length", () => {
    const cut = '<|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>{"city": "Ro';
    expect(parse(`${BEGIN}${call("functions.get_time:0", "{}")}${cut}`, "length")).toEqual({
      content: cut,
      calls: [{ callIndex: 0, name: "get_time", arguments: "{}", nativeId: "functions.get_time:0" }],
      failures: [
        {
          callIndex: 1,
          kind: "truncated_tool_call",
          reason: "the generation was cut off (finish_reason=length) before <|tool_call_end|>",
          raw: cut,
        },
      ],
    });
  });

  it("should keep unicode arguments", () => {
    expect(
      parse(`${BEGIN}${call("functions.get_weather:0", '{"city": "서울 北京", "note": "👍🏽"}')}${END}`)
        .calls,
    ).toEqual([
      {
        callIndex: 0,
        name: "get_weather",
        arguments: '{"city":"서울 北京","note":"👍🏽"}',
        nativeId: "functions.get_weather:0",
      },
    ]);
  });

  it("should use the native ids as tool-call ids and ignore calls inside reasoning", () => {
    const inside = `${BEGIN}${call("functions.get_time:0", "{}")}${END}`;
    const result = parseAssistantOutput({
      text: `<think>maybe ${inside}</think>Let me check.${BEGIN}${call("functions.get_weather:0", '{"city": "Paris"}')}${END}<|im_end|>`,
      reasoningParser: "kimi_k2",
      toolParser: "kimi_k2",
      tools: weatherTools,
      finishReason: "stop",
      callIdSeed: "s",
    });
    expect(result).toEqual({
      message: {
        role: "assistant",
        content: "Let me check.",
        reasoning_content: `maybe ${inside}`,
        tool_calls: [
          {
            id: "functions.get_weather:0",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
        ],
      },
      issues: [],
      finishReason: "tool_calls",
    });
  });
});
