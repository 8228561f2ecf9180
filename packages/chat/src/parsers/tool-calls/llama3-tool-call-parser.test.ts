import { describe, expect, it } from "vitest";
import { weatherTools } from "../__fixtures__/weather-tools";
import { parseAssistantOutput } from "../parse-assistant-output";
import { llama3ToolCallParser } from "./llama3-tool-call-parser";

const TAG = "<|python_tag|>";
const parse = (text: string, finishReason: "stop" | "length" = "stop") =>
  llama3ToolCallParser.parse({ text, tools: weatherTools, finishReason });

describe("llama3 tool-call parser", () => {
  it("should parse a single tagged call with parameters", () => {
    expect(parse(`${TAG}{"name": "get_weather", "parameters": {"city": "Paris"}}`)).toEqual({
      content: "",
      calls: [{ callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' }],
      failures: [],
    });
  });

  it("should parse an untagged call at the start of the text, with arguments", () => {
    expect(parse('  {"name": "get_time", "arguments": {"tz": "UTC"}}')).toEqual({
      content: "",
      calls: [{ callIndex: 0, name: "get_time", arguments: '{"tz":"UTC"}' }],
      failures: [],
    });
  });

  it("should keep plain JSON content that is not call-shaped", () => {
    expect(parse('{"answer": 42}')).toEqual({ content: '{"answer": 42}', calls: [], failures: [] });
  });

  it("should parse several calls separated by ';' with text before and after", () => {
    const text = `Checking.\n${TAG}{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "get_time", "parameters": {"tz": "CET"}}\nDone.`;
    expect(parse(text)).toEqual({
      content: "Checking.\nDone.",
      calls: [
        { callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' },
        { callIndex: 1, name: "get_time", arguments: '{"tz":"CET"}' },
      ],
      failures: [],
    });
  });

  it("should keep text between two tagged calls", () => {
    const text = `${TAG}{"name": "get_time", "parameters": {}} and ${TAG}{"name": "get_time", "parameters": {"tz": "UTC"}}`;
    expect(parse(text).content).toBe("and");
  });

  it("should report malformed JSON and keep the other calls", () => {
    const text = `${TAG}{"name": "get_time", "parameters": {}}; {"name": "get_weather", "parameters": {"city": }}`;
    expect(parse(text)).toEqual({
      content: '{"name": "get_weather", "parameters": {"city": }}',
      calls: [{ callIndex: 0, name: "get_time", arguments: "{}" }],
      failures: [
        {
          callIndex: 1,
          kind: "malformed_tool_call",
          reason: 'invalid JSON: unexpected character "}" at character 47 of the JSON',
          raw: '{"name": "get_weather", "parameters": {"city": }}',
        },
      ],
    });
  });

  it("should report a call cut off by finish_reason=length", () => {
    expect(parse(`${TAG}{"name": "get_weather", "parameters": {"ci`, "length")).toEqual({
      content: `${TAG}{"name": "get_weather", "parameters": {"ci`,
      calls: [],
      failures: [
        {
          callIndex: 0,
          kind: "truncated_tool_call",
          reason: "the generation was cut off (finish_reason=length) inside the call",
          raw: `${TAG}{"name": "get_weather", "parameters": {"ci`,
        },
      ],
    });
  });

  it("should report non-JSON after the tag (built-in python calls are not function calls)", () => {
    const raw = `${TAG}brave_search.call(query="x")`;
    expect(parse(raw).failures).toEqual([
      { callIndex: 0, kind: "malformed_tool_call", reason: `expected a JSON call object after ${TAG}`, raw },
    ]);
  });

  it("should keep unicode arguments", () => {
    expect(
      parse(`${TAG}{"name": "get_weather", "parameters": {"city": "Zürich 苏黎世", "note": "❄️"}}`).calls,
    ).toEqual([{ callIndex: 0, name: "get_weather", arguments: '{"city":"Zürich 苏黎世","note":"❄️"}' }]);
  });

  it("should not parse a call inside reasoning", () => {
    const result = parseAssistantOutput({
      text: `<think>${TAG}{"name": "get_time", "parameters": {}}</think>It is noon.<|eot_id|>`,
      reasoningParser: "deepseek-r1",
      toolParser: "llama3",
      tools: weatherTools,
      finishReason: "stop",
      callIdSeed: "s",
    });
    expect(result).toEqual({
      message: {
        role: "assistant",
        content: "It is noon.",
        reasoning_content: `${TAG}{"name": "get_time", "parameters": {}}`,
      },
      issues: [],
      finishReason: "stop",
    });
  });
});
