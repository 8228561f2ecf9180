import { describe, expect, it } from "vitest";
import { weatherTools } from "../__fixtures__/weather-tools";
import { parseAssistantOutput } from "../parse-assistant-output";
import { pythonicToolCallParser } from "./pythonic-tool-call-parser";

const parse = (text: string, finishReason: "stop" | "length" = "stop") =>
  pythonicToolCallParser.parse({ text, tools: weatherTools, finishReason });

describe("pythonic tool-call parser", () => {
  it("should parse a single call", () => {
    expect(parse('[get_weather(city="Paris")]')).toEqual({
      content: "",
      calls: [{ callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' }],
      failures: [],
    });
  });

  it("should parse several calls with Python literals", () => {
    const text =
      "[get_weather(city='Paris', days=3, metric=True, threshold=-2.0, tags=['a', \"b\"], options={'k': None, 'n': (1, 2)}), get_time(tz=\"UTC\",)]";
    expect(parse(text).calls).toEqual([
      {
        callIndex: 0,
        name: "get_weather",
        arguments:
          '{"city":"Paris","days":3,"metric":true,"options":{"k":null,"n":[1,2]},"tags":["a","b"],"threshold":-2}',
      },
      { callIndex: 1, name: "get_time", arguments: '{"tz":"UTC"}' },
    ]);
  });

  it("should keep text before, between and after call lists, and drop Llama 4 python wrappers", () => {
    const text = 'Let me see.\n<|python_start|>[get_time(tz="UTC")]<|python_end|>\nand\n[get_time()]\nok';
    expect(parse(text)).toEqual({
      content: "Let me see.\nand\nok",
      calls: [
        { callIndex: 0, name: "get_time", arguments: '{"tz":"UTC"}' },
        { callIndex: 1, name: "get_time", arguments: "{}" },
      ],
      failures: [],
    });
  });

  it("should leave brackets that are not call lists alone", () => {
    expect(parse("See [the docs](https://x.y) and [1, 2].")).toEqual({
      content: "See [the docs](https://x.y) and [1, 2].",
      calls: [],
      failures: [],
    });
  });

  it("should report a malformed list and keep the other calls", () => {
    const text = '[get_weather("Paris")] then [get_time(tz="UTC")]';
    expect(parse(text)).toEqual({
      content: '[get_weather("Paris")] then',
      calls: [{ callIndex: 1, name: "get_time", arguments: '{"tz":"UTC"}' }],
      failures: [
        {
          callIndex: 0,
          kind: "malformed_tool_call",
          reason:
            "invalid pythonic call list: positional arguments are not supported; use key=value at character 13",
          raw: '[get_weather("Paris")]',
        },
      ],
    });
  });

  it("should report a list cut off by finish_reason=length", () => {
    expect(parse('[get_time(tz="UTC"), get_weather(city="Par', "length")).toEqual({
      content: '[get_time(tz="UTC"), get_weather(city="Par',
      calls: [],
      failures: [
        {
          callIndex: 0,
          kind: "truncated_tool_call",
          reason: "the generation was cut off (finish_reason=length) inside the call list",
          raw: '[get_time(tz="UTC"), get_weather(city="Par',
        },
      ],
    });
  });

  it("should keep unicode arguments, also from escapes", () => {
    expect(parse("[get_weather(city='北京', note='\\U0001F327 \\u96e8')]").calls).toEqual([
      { callIndex: 0, name: "get_weather", arguments: '{"city":"北京","note":"🌧 雨"}' },
    ]);
  });

  it("should not parse a call list inside reasoning", () => {
    const result = parseAssistantOutput({
      text: '<think>Maybe [get_time(tz="UTC")].</think>No.<|eot_id|>',
      reasoningParser: "qwen3",
      toolParser: "pythonic",
      tools: weatherTools,
      finishReason: "stop",
      callIdSeed: "s",
    });
    expect(result).toEqual({
      message: { role: "assistant", content: "No.", reasoning_content: 'Maybe [get_time(tz="UTC")].' },
      issues: [],
      finishReason: "stop",
    });
  });
});
