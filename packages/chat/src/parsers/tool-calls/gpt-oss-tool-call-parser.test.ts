import { describe, expect, it } from "vitest";
import { weatherTools } from "../__fixtures__/weather-tools";
import { parseAssistantOutput } from "../parse-assistant-output";
import { gptOssToolCallParser } from "./gpt-oss-tool-call-parser";

const call = (name: string, json: string, end = "<|call|>") =>
  `<|start|>assistant<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>${json}${end}`;
const parse = (text: string, finishReason: "stop" | "length" = "stop") =>
  gptOssToolCallParser.parse({ text, tools: weatherTools, finishReason });

describe("gpt-oss tool-call parser", () => {
  it("should parse a single call (the first message of a turn has no <|start|>)", () => {
    expect(
      parse(
        '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>',
      ),
    ).toEqual({
      content: "",
      calls: [{ callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' }],
      failures: [],
    });
  });

  it("should accept the recipient before the channel and an empty body", () => {
    const text = "<|start|>assistant to=functions.get_time<|channel|>commentary json<|message|><|call|>";
    expect(parse(text).calls).toEqual([{ callIndex: 0, name: "get_time", arguments: "{}" }]);
  });

  it("should keep several calls and the bodies of other messages (analysis too, when not taken as reasoning)", () => {
    const text = `<|channel|>analysis<|message|>Two lookups.<|end|>${call("get_weather", '{"city":"Paris"}', "<|end|>")}<|start|>assistant<|channel|>commentary<|message|>Checking the time too.<|end|>${call("get_time", '{"tz":"UTC"}')}`;
    expect(parse(text)).toEqual({
      content: "Two lookups.\nChecking the time too.",
      calls: [
        { callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' },
        { callIndex: 1, name: "get_time", arguments: '{"tz":"UTC"}' },
      ],
      failures: [],
    });
  });

  it("should keep plain text around calls", () => {
    expect(parse(`Before ${call("get_time", "{}")} after`).content).toBe("Before\nafter");
  });

  it("should report malformed JSON and keep the other call", () => {
    const bad = call("get_weather", '{"city":"Paris"');
    expect(parse(`${bad}${call("get_time", "{}")}`)).toEqual({
      content: bad,
      calls: [{ callIndex: 1, name: "get_time", arguments: "{}" }],
      failures: [
        {
          callIndex: 0,
          kind: "malformed_tool_call",
          reason: "invalid JSON: unexpected end of JSON at character 15 of the JSON",
          raw: bad,
        },
      ],
    });
  });

  it("should report a call cut off by finish_reason=length, and accept one whose <|call|> was stripped", () => {
    const cut = call("get_weather", '{"city":"Par', "");
    expect(parse(cut, "length").failures).toEqual([
      {
        callIndex: 0,
        kind: "truncated_tool_call",
        reason: "the generation was cut off (finish_reason=length) before <|call|>",
        raw: cut,
      },
    ]);
    expect(parse(call("get_time", '{"tz":"UTC"}', ""), "stop").calls).toEqual([
      { callIndex: 0, name: "get_time", arguments: '{"tz":"UTC"}' },
    ]);
  });

  it("should keep unicode arguments", () => {
    expect(parse(call("get_weather", '{"city":"Москва 莫斯科","note":"🌨"}')).calls).toEqual([
      { callIndex: 0, name: "get_weather", arguments: '{"city":"Москва 莫斯科","note":"🌨"}' },
    ]);
  });

  it("should split reasoning, content and calls with both gpt-oss parsers", () => {
    const result = parseAssistantOutput({
      text: `<|channel|>analysis<|message|>User wants weather. I might call to=functions.get_time {"tz":"UTC"} but no.<|end|>${call("get_weather", '{"city":"Paris"}')}`,
      reasoningParser: "gpt-oss",
      toolParser: "gpt-oss",
      tools: weatherTools,
      finishReason: "stop",
      callIdSeed: "s",
    });
    expect(result).toEqual({
      message: {
        role: "assistant",
        content: "",
        reasoning_content: 'User wants weather. I might call to=functions.get_time {"tz":"UTC"} but no.',
        tool_calls: [
          {
            id: "call_f63a505aeffc9be601edec87",
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
