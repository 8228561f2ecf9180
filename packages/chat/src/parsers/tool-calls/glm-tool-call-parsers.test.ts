import { describe, expect, it } from "vitest";
import { weatherTools } from "../__fixtures__/weather-tools";
import { parseAssistantOutput } from "../parse-assistant-output";
import { glm45ToolCallParser, glm47ToolCallParser } from "./glm-tool-call-parsers";

const glm45 = (name: string, args: Record<string, string>) =>
  `<tool_call>${name}\n${Object.entries(args)
    .map(([key, value]) => `<arg_key>${key}</arg_key>\n<arg_value>${value}</arg_value>\n`)
    .join("")}</tool_call>`;
const glm47 = (name: string, args: Record<string, string>) =>
  `<tool_call>${name}${Object.entries(args)
    .map(([key, value]) => `<arg_key>${key}</arg_key><arg_value>${value}</arg_value>`)
    .join("")}</tool_call>`;

describe.each([
  { parser: glm45ToolCallParser, call: glm45 },
  { parser: glm47ToolCallParser, call: glm47 },
])("$parser.name tool-call parser", ({ parser, call }) => {
  const parse = (text: string, finishReason: "stop" | "length" = "stop") =>
    parser.parse({ text, tools: weatherTools, finishReason });

  it("should parse a single call", () => {
    expect(parse(call("get_weather", { city: "Paris" }))).toEqual({
      content: "",
      calls: [{ callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' }],
      failures: [],
    });
  });

  it("should type values by the schema, keep string values raw, and try JSON for unknown keys", () => {
    const text = call("get_weather", {
      city: '"quoted"',
      days: "3",
      metric: "false",
      tags: '["x"]',
      options: '{"a": 1.0}',
      extra: "[1, 2]",
    });
    expect(parse(text).calls).toEqual([
      {
        callIndex: 0,
        name: "get_weather",
        arguments:
          '{"city":"\\"quoted\\"","days":3,"extra":[1,2],"metric":false,"options":{"a":1},"tags":["x"]}',
      },
    ]);
  });

  it("should parse a call without arguments", () => {
    expect(parse("<tool_call>get_time</tool_call>").calls).toEqual([
      { callIndex: 0, name: "get_time", arguments: "{}" },
    ]);
  });

  it("should keep several calls in order with text before, between and after", () => {
    const text = `Okay.\n${call("get_weather", { city: "Paris" })}\nalso\n${call("get_time", { tz: "UTC" })}\nend`;
    expect(parse(text)).toEqual({
      content: "Okay.\nalso\nend",
      calls: [
        { callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' },
        { callIndex: 1, name: "get_time", arguments: '{"tz":"UTC"}' },
      ],
      failures: [],
    });
  });

  it("should report a malformed call and keep the other one", () => {
    const bad = "<tool_call>get_weather<arg_key>city</arg_key>Paris</tool_call>";
    expect(parse(`${bad}${call("get_time", { tz: "UTC" })}`)).toEqual({
      content: bad,
      calls: [{ callIndex: 1, name: "get_time", arguments: '{"tz":"UTC"}' }],
      failures: [
        {
          callIndex: 0,
          kind: "malformed_tool_call",
          reason: 'expected <arg_value> after key "city"',
          raw: bad,
        },
      ],
    });
  });

  it("should report a call cut off by finish_reason=length", () => {
    const cut = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Par";
    expect(parse(`${call("get_time", {})}${cut}`, "length")).toEqual({
      content: cut,
      calls: [{ callIndex: 0, name: "get_time", arguments: "{}" }],
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

  it("should keep unicode values", () => {
    expect(parse(call("get_weather", { city: "北京", note: "🌧️ 小雨" })).calls).toEqual([
      { callIndex: 0, name: "get_weather", arguments: '{"city":"北京","note":"🌧️ 小雨"}' },
    ]);
  });

  it("should not parse a call inside glm45 reasoning", () => {
    const inner = call("get_time", { tz: "UTC" });
    const result = parseAssistantOutput({
      text: `<think>Could do ${inner}</think>\nNo need.<|user|>`,
      reasoningParser: "glm45",
      toolParser: parser,
      tools: weatherTools,
      finishReason: "stop",
      callIdSeed: "s",
    });
    expect(result).toEqual({
      message: { role: "assistant", content: "No need.", reasoning_content: `Could do ${inner}` },
      issues: [],
      finishReason: "stop",
    });
  });
});
