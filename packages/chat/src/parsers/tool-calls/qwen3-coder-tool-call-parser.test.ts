import { describe, expect, it } from "vitest";
import { weatherTools } from "../__fixtures__/weather-tools";
import { parseAssistantOutput } from "../parse-assistant-output";
import { qwen3CoderToolCallParser } from "./qwen3-coder-tool-call-parser";

const parse = (text: string, finishReason: "stop" | "length" = "stop") =>
  qwen3CoderToolCallParser.parse({ text, tools: weatherTools, finishReason });

const block = (name: string, params: Record<string, string>) =>
  `<tool_call>\n<function=${name}>\n${Object.entries(params)
    .map(([key, value]) => `<parameter=${key}>\n${value}\n</parameter>\n`)
    .join("")}</function>\n</tool_call>`;

describe("qwen3_coder tool-call parser", () => {
  it("should parse a single call", () => {
    expect(parse(block("get_weather", { city: "Paris" }))).toEqual({
      content: "",
      calls: [{ callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' }],
      failures: [],
    });
  });

  it("should type every parameter by the tool's JSON schema", () => {
    const text = block("get_weather", {
      city: "42",
      days: "3",
      metric: "True",
      threshold: "2.50",
      tags: '["a", "b"]',
      options: "{'deep': {'x': None}}",
      note: "null",
    });
    expect(parse(text).calls).toEqual([
      {
        callIndex: 0,
        name: "get_weather",
        arguments:
          '{"city":"42","days":3,"metric":true,"note":null,"options":{"deep":{"x":null}},"tags":["a","b"],"threshold":2.5}',
      },
    ]);
  });

  it("should keep a value that does not fit its type as the raw string", () => {
    expect(parse(block("get_weather", { city: "Paris", days: "three" })).calls).toEqual([
      { callIndex: 0, name: "get_weather", arguments: '{"city":"Paris","days":"three"}' },
    ]);
  });

  it("should keep parameters of an unknown tool as strings", () => {
    expect(parse(block("search", { query: "1", n: "2" })).calls).toEqual([
      { callIndex: 0, name: "search", arguments: '{"n":"2","query":"1"}' },
    ]);
  });

  it("should strip only one newline around a value and keep inner whitespace", () => {
    expect(parse(block("get_weather", { city: "\n  line one\nline two  \n" })).calls).toEqual([
      { callIndex: 0, name: "get_weather", arguments: '{"city":"\\n  line one\\nline two  \\n"}' },
    ]);
  });

  it("should keep several calls, also several functions in one block, with text around them", () => {
    const twoInOne =
      "<tool_call>\n<function=get_time>\n<parameter=tz>\nUTC\n</parameter>\n</function>\n<function=get_time>\n<parameter=tz>\nCET\n</parameter>\n</function>\n</tool_call>";
    const text = `Checking.\n${block("get_weather", { city: "Paris" })}\nthen\n${twoInOne}\nbye`;
    expect(parse(text)).toEqual({
      content: "Checking.\nthen\nbye",
      calls: [
        { callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' },
        { callIndex: 1, name: "get_time", arguments: '{"tz":"UTC"}' },
        { callIndex: 2, name: "get_time", arguments: '{"tz":"CET"}' },
      ],
      failures: [],
    });
  });

  it("should end a value at the next <parameter= or at </function> when </parameter> is missing", () => {
    const text =
      "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n<parameter=days>\n2\n</function>\n</tool_call>";
    expect(parse(text).calls).toEqual([
      { callIndex: 0, name: "get_weather", arguments: '{"city":"Paris","days":2}' },
    ]);
  });

  it("should report a malformed block and keep the other calls", () => {
    const bad = "<tool_call>\n<function=get_weather>\ncity=Paris\n</function>\n</tool_call>";
    const text = `${bad}\n${block("get_time", { tz: "UTC" })}`;
    expect(parse(text)).toEqual({
      content: bad,
      calls: [{ callIndex: 1, name: "get_time", arguments: '{"tz":"UTC"}' }],
      failures: [{ callIndex: 0, kind: "malformed_tool_call", reason: "expected <parameter=KEY>", raw: bad }],
    });
  });

  it("should report a call cut off by finish_reason=length", () => {
    const cut = "<tool_call>\n<function=get_weather>\n<parameter=city>\nPar";
    expect(parse(`${block("get_time", { tz: "UTC" })}\n${cut}`, "length")).toEqual({
      content: cut,
      calls: [{ callIndex: 0, name: "get_time", arguments: '{"tz":"UTC"}' }],
      failures: [
        {
          callIndex: 1,
          kind: "truncated_tool_call",
          reason: "the generation was cut off (finish_reason=length) before </tool_call>",
          raw: cut,
        },
      ],
    });
  });

  it("should keep Chinese and emoji values", () => {
    expect(parse(block("get_weather", { city: "上海 🌆", tags: '["晴", "☀️"]' })).calls).toEqual([
      { callIndex: 0, name: "get_weather", arguments: '{"city":"上海 🌆","tags":["晴","☀️"]}' },
    ]);
  });

  it("should not parse a call inside qwen3 reasoning", () => {
    const inner = block("get_time", { tz: "UTC" });
    const result = parseAssistantOutput({
      text: `Thinking about ${inner} first.</think>\n\nNo call needed.<|im_end|>`,
      reasoningParser: "qwen3",
      toolParser: "qwen3_coder",
      forceReasoning: true,
      tools: weatherTools,
      finishReason: "stop",
      callIdSeed: "s",
    });
    expect(result).toEqual({
      message: {
        role: "assistant",
        content: "No call needed.",
        reasoning_content: `Thinking about ${inner} first.`,
      },
      issues: [],
      finishReason: "stop",
    });
  });
});
