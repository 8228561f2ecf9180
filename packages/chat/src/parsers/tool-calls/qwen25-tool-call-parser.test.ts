import { describe, expect, it } from "vitest";
import { weatherTools } from "../__fixtures__/weather-tools";
import { parseAssistantOutput } from "../parse-assistant-output";
import { hermesToolCallParser, qwen25ToolCallParser } from "./qwen25-tool-call-parser";

const call = (json: string) => `<tool_call>\n${json}\n</tool_call>`;

describe.each([qwen25ToolCallParser, hermesToolCallParser])("$name tool-call parser", (parser) => {
  const parse = (text: string, finishReason: "stop" | "length" = "stop") =>
    parser.parse({ text, tools: weatherTools, finishReason });

  it("should parse a single call with canonical arguments", () => {
    expect(parse(call('{"name": "get_weather", "arguments": {"days": 3.0, "city": "Paris"}}'))).toEqual({
      content: "",
      calls: [{ callIndex: 0, name: "get_weather", arguments: '{"city":"Paris","days":3}' }],
      failures: [],
    });
  });

  it("should keep several calls in order", () => {
    const text = [
      call('{"name": "get_weather", "arguments": {"city": "Paris"}}'),
      call('{"name": "get_time", "arguments": {"tz": "UTC"}}'),
      call('{"name": "get_weather", "arguments": {"city": "Rome"}}'),
    ].join("\n");
    expect(parse(text).calls).toEqual([
      { callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' },
      { callIndex: 1, name: "get_time", arguments: '{"tz":"UTC"}' },
      { callIndex: 2, name: "get_weather", arguments: '{"city":"Rome"}' },
    ]);
  });

  it("should keep text before, between and after calls", () => {
    const text = `I'll check both.\n\n${call('{"name": "get_weather", "arguments": {"city": "Paris"}}')}\nand then\n${call('{"name": "get_time", "arguments": {"tz": "CET"}}')}\nDone.`;
    expect(parse(text)).toEqual({
      content: "I'll check both.\nand then\nDone.",
      calls: [
        { callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' },
        { callIndex: 1, name: "get_time", arguments: '{"tz":"CET"}' },
      ],
      failures: [],
    });
  });

  it("should keep a malformed call's raw text in content and the other calls", () => {
    const bad = call('{"name": "get_weather", "arguments": {"city": "Paris",}}');
    const text = `${bad}\n${call('{"name": "get_time", "arguments": {}}')}`;
    expect(parse(text)).toEqual({
      content: bad,
      calls: [{ callIndex: 1, name: "get_time", arguments: "{}" }],
      failures: [
        {
          callIndex: 0,
          kind: "malformed_tool_call",
          reason: "invalid JSON: expected a string key at character 54 of the JSON",
          raw: bad,
        },
      ],
    });
  });

  it("should report a call cut off by finish_reason=length as truncated", () => {
    const text = `${call('{"name": "get_time", "arguments": {"tz": "UTC"}}')}\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par`;
    expect(parse(text, "length")).toEqual({
      content: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par',
      calls: [{ callIndex: 0, name: "get_time", arguments: '{"tz":"UTC"}' }],
      failures: [
        {
          callIndex: 1,
          kind: "truncated_tool_call",
          reason: "the generation was cut off (finish_reason=length) before </tool_call>",
          raw: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par',
        },
      ],
    });
  });

  it("should treat complete JSON without </tool_call> as truncated when cut off, accepted when stopped", () => {
    const text = '<tool_call>\n{"name": "get_time", "arguments": {"tz": "UTC"}}';
    expect(parse(text, "length").failures.map((f) => f.kind)).toEqual(["truncated_tool_call"]);
    expect(parse(text, "stop")).toEqual({
      content: "",
      calls: [{ callIndex: 0, name: "get_time", arguments: '{"tz":"UTC"}' }],
      failures: [],
    });
  });

  it("should keep Chinese and emoji arguments unescaped", () => {
    const text = call(
      '{"name": "get_weather", "arguments": {"city": "北京", "note": "☔️ \\ud83c\\udf27 rain"}}',
    );
    expect(parse(text).calls).toEqual([
      { callIndex: 0, name: "get_weather", arguments: '{"city":"北京","note":"☔️ 🌧 rain"}' },
    ]);
  });

  it("should not end a call at </tool_call> inside a JSON string (hermes raw_decode)", () => {
    const text = call('{"name": "get_weather", "arguments": {"city": "a</tool_call>b"}}');
    expect(hermesToolCallParser.parse({ text, tools: weatherTools, finishReason: "stop" }).calls).toEqual([
      { callIndex: 0, name: "get_weather", arguments: '{"city":"a</tool_call>b"}' },
    ]);
  });

  it("should accept <tool_call> without newlines (hermes)", () => {
    const text = '<tool_call>{"name":"get_time","arguments":{"tz":"UTC"}}</tool_call>';
    expect(hermesToolCallParser.parse({ text, tools: weatherTools, finishReason: "stop" }).calls).toEqual([
      { callIndex: 0, name: "get_time", arguments: '{"tz":"UTC"}' },
    ]);
  });

  it.each([
    ['{"arguments": {}}', 'the call object has no "name"'],
    [
      '{"name": "get_time", "arguments": "{\\"tz\\": \\"UTC\\"}"}',
      "the arguments must be a JSON object, got a string",
    ],
    [
      '{"name": "get_time", "arguments": {"tz": "a", "tz": "b"}}',
      'invalid arguments: duplicate key "tz" at offset 16',
    ],
    ['{"name": "get_time", "name": "x"}', 'duplicate key "name"'],
    ['{"name": "get_time"} trailing', "expected </tool_call> after the call's JSON"],
  ])("should report %s as malformed: %s", (json, reason) => {
    const result = parse(call(json));
    expect(result.calls).toEqual([]);
    expect(result.failures).toEqual([{ callIndex: 0, kind: "malformed_tool_call", reason, raw: call(json) }]);
    expect(result.content).toBe(call(json));
  });

  it("should read a missing arguments member as {}", () => {
    expect(parse(call('{"name": "get_time"}')).calls).toEqual([
      { callIndex: 0, name: "get_time", arguments: "{}" },
    ]);
  });

  it("should not parse tool-call-shaped text inside qwen3 reasoning", () => {
    const result = parseAssistantOutput({
      text: `<think>\nMaybe ${call('{"name": "get_time", "arguments": {"tz": "UTC"}}')}? No.\n</think>\n\nIt is noon.<|im_end|>`,
      reasoningParser: "qwen3",
      toolParser: parser,
      tools: weatherTools,
      finishReason: "stop",
      callIdSeed: "s",
    });
    expect(result).toEqual({
      message: {
        role: "assistant",
        content: "It is noon.",
        reasoning_content: `Maybe ${call('{"name": "get_time", "arguments": {"tz": "UTC"}}')}? No.`,
      },
      issues: [],
      finishReason: "stop",
    });
  });
});
