import { describe, expect, it } from "vitest";
import { weatherTools } from "../__fixtures__/weather-tools";
import { parseAssistantOutput } from "../parse-assistant-output";
import { mistralToolCallParser } from "./mistral-tool-call-parser";

const TC = "[TOOL_CALLS]";
const parse = (text: string, finishReason: "stop" | "length" = "stop") =>
  mistralToolCallParser.parse({ text, tools: weatherTools, finishReason });

describe("mistral tool-call parser", () => {
  describe("JSON list form", () => {
    it("should parse a single call", () => {
      expect(parse(`${TC} [{"name": "get_weather", "arguments": {"city": "Paris"}}]`)).toEqual({
        content: "",
        calls: [{ callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' }],
        failures: [],
      });
    });

    it("should parse several calls with text before and after", () => {
      const text = `Sure.${TC} [{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {"tz": "UTC"}}]\n\nAnything else?`;
      expect(parse(text)).toEqual({
        content: "Sure.\nAnything else?",
        calls: [
          { callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' },
          { callIndex: 1, name: "get_time", arguments: '{"tz":"UTC"}' },
        ],
        failures: [],
      });
    });

    it("should keep the well-formed items of a list and report the others", () => {
      const text = `${TC} [{"name": "get_time", "arguments": {}}, {"arguments": {"city": "Rome"}}]`;
      expect(parse(text)).toEqual({
        content: '{"arguments": {"city": "Rome"}}',
        calls: [{ callIndex: 0, name: "get_time", arguments: "{}" }],
        failures: [
          {
            callIndex: 1,
            kind: "malformed_tool_call",
            reason: 'the call object has no "name"',
            raw: '{"arguments": {"city": "Rome"}}',
          },
        ],
      });
    });

    it("should report malformed JSON", () => {
      const raw = `${TC} [{"name": "get_time", "arguments": {}]`;
      expect(parse(raw)).toEqual({
        content: raw,
        calls: [],
        failures: [
          {
            callIndex: 0,
            kind: "malformed_tool_call",
            reason: "invalid JSON: expected ',' or '}' at character 37 of the JSON",
            raw,
          },
        ],
      });
    });

    it("should report a list cut off by finish_reason=length", () => {
      const raw = `${TC} [{"name": "get_time", "arguments": {"tz": "U`;
      expect(parse(raw, "length").failures).toEqual([
        {
          callIndex: 0,
          kind: "truncated_tool_call",
          reason: "the generation was cut off (finish_reason=length) inside the call",
          raw,
        },
      ]);
    });
  });

  describe("compact form", () => {
    it("should parse one [TOOL_CALLS] per call, with text between and after", () => {
      const text = `${TC}get_weather[ARGS]{"city": "Paris"} and ${TC}get_time[CALL_ID]a1b2c3d4e[ARGS]{"tz": "UTC"}\nbye`;
      expect(parse(text)).toEqual({
        content: "and\nbye",
        calls: [
          { callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' },
          { callIndex: 1, name: "get_time", arguments: '{"tz":"UTC"}' },
        ],
        failures: [],
      });
    });

    it("should report malformed JSON and keep the other call", () => {
      const bad = `${TC}get_weather[ARGS]{"city": "Paris"`;
      expect(parse(`${bad}${TC}get_time[ARGS]{}`)).toEqual({
        content: bad,
        calls: [{ callIndex: 1, name: "get_time", arguments: "{}" }],
        failures: [
          {
            callIndex: 0,
            kind: "malformed_tool_call",
            reason: "invalid JSON: unexpected end of JSON at character 16 of the JSON",
            raw: bad,
          },
        ],
      });
    });

    it("should report a call cut off by finish_reason=length, also before [ARGS]", () => {
      expect(parse(`${TC}get_time[ARGS]{}${TC}get_wea`, "length")).toEqual({
        content: `${TC}get_wea`,
        calls: [{ callIndex: 0, name: "get_time", arguments: "{}" }],
        failures: [
          {
            callIndex: 1,
            kind: "truncated_tool_call",
            reason: "the generation was cut off (finish_reason=length) inside the call",
            raw: `${TC}get_wea`,
          },
        ],
      });
    });

    it("should keep unicode arguments", () => {
      expect(parse(`${TC}get_weather[ARGS]{"city": "Genève 日内瓦", "note": "🇨🇭"}`).calls).toEqual([
        { callIndex: 0, name: "get_weather", arguments: '{"city":"Genève 日内瓦","note":"🇨🇭"}' },
      ]);
    });
  });

  it("should not parse a call inside [THINK] reasoning", () => {
    const result = parseAssistantOutput({
      text: `[THINK]Use ${TC}get_time[ARGS]{} maybe.[/THINK]It is noon.</s>`,
      reasoningParser: "mistral",
      toolParser: "mistral",
      tools: weatherTools,
      finishReason: "stop",
      callIdSeed: "s",
    });
    expect(result).toEqual({
      message: {
        role: "assistant",
        content: "It is noon.",
        reasoning_content: `Use ${TC}get_time[ARGS]{} maybe.`,
      },
      issues: [],
      finishReason: "stop",
    });
  });
});
