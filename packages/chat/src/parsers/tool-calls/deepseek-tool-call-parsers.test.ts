import { describe, expect, it } from "vitest";
import { weatherTools } from "../__fixtures__/weather-tools";
import { parseAssistantOutput } from "../parse-assistant-output";
import { deepseekV3ToolCallParser, deepseekV31ToolCallParser } from "./deepseek-tool-call-parsers";

const BEGIN = "<｜tool▁calls▁begin｜>";
const END = "<｜tool▁calls▁end｜>";
const v3 = (name: string, json: string) =>
  `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${name}\n\`\`\`json\n${json}\n\`\`\`<｜tool▁call▁end｜>`;
const v31 = (name: string, json: string) =>
  `<｜tool▁call▁begin｜>${name}<｜tool▁sep｜>${json}<｜tool▁call▁end｜>`;

const formats = [
  { parser: deepseekV3ToolCallParser, call: v3 },
  { parser: deepseekV31ToolCallParser, call: v31 },
] as const;

describe.each(formats)("$parser.name tool-call parser", ({ parser, call }) => {
  const parse = (text: string, finishReason: "stop" | "length" = "stop") =>
    parser.parse({ text, tools: weatherTools, finishReason });

  it("should parse a single call and drop the section markers", () => {
    expect(parse(`${BEGIN}${call("get_weather", '{"city": "Paris"}')}${END}`)).toEqual({
      content: "",
      calls: [{ callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' }],
      failures: [],
    });
  });

  it("should keep several calls in order with text before and after", () => {
    const text = `Let me look.\n\n${BEGIN}${call("get_weather", '{"city": "Paris"}')}\n${call("get_time", '{"tz": "UTC"}')}${END}\nDone`;
    expect(parse(text)).toEqual({
      content: "Let me look.\nDone",
      calls: [
        { callIndex: 0, name: "get_weather", arguments: '{"city":"Paris"}' },
        { callIndex: 1, name: "get_time", arguments: '{"tz":"UTC"}' },
      ],
      failures: [],
    });
  });

  it("should keep text between calls", () => {
    const text = `${BEGIN}${call("get_time", "{}")} and ${call("get_time", '{"tz": "CET"}')}${END}`;
    expect(parse(text).content).toBe("and");
  });

  it("should report malformed JSON and keep the other call", () => {
    const bad = call("get_weather", '{"city": Paris}');
    expect(parse(`${BEGIN}${bad}${call("get_time", '{"tz": "UTC"}')}${END}`)).toEqual({
      content: bad,
      calls: [{ callIndex: 1, name: "get_time", arguments: '{"tz":"UTC"}' }],
      failures: [
        {
          callIndex: 0,
          kind: "malformed_tool_call",
          reason: 'invalid JSON: unexpected character "P" at character 9 of the JSON',
          raw: bad,
        },
      ],
    });
  });

  it("should report a call cut off by finish_reason=length", () => {
    const full = call("get_weather", '{"city": "Paris"}');
    const cut = full.slice(0, full.indexOf('"Pa') + 3);
    const text = `${BEGIN}${call("get_time", "{}")}${cut}`;
    expect(parse(text, "length")).toEqual({
      content: cut,
      calls: [{ callIndex: 0, name: "get_time", arguments: "{}" }],
      failures: [
        {
          callIndex: 1,
          kind: "truncated_tool_call",
          reason: "the generation was cut off (finish_reason=length) before <｜tool▁call▁end｜>",
          raw: cut,
        },
      ],
    });
  });

  it("should report an empty section cut off right after it opened", () => {
    expect(parse(`Checking.${BEGIN}`, "length")).toEqual({
      content: `Checking.${BEGIN}`,
      calls: [],
      failures: [
        {
          callIndex: 0,
          kind: "truncated_tool_call",
          reason: "the generation was cut off (finish_reason=length) inside the tool-call section",
          raw: BEGIN,
        },
      ],
    });
  });

  it("should keep unicode arguments", () => {
    expect(parse(`${BEGIN}${call("get_weather", '{"city": "东京", "note": "🌸"}')}${END}`).calls).toEqual([
      { callIndex: 0, name: "get_weather", arguments: '{"city":"东京","note":"🌸"}' },
    ]);
  });

  it("should not parse calls inside deepseek-r1 reasoning", () => {
    const inside = `${BEGIN}${call("get_time", "{}")}${END}`;
    const result = parseAssistantOutput({
      text: `I could use ${inside} but no.\n</think>\n\nIt is late.<｜end▁of▁sentence｜>`,
      reasoningParser: "deepseek-r1",
      toolParser: parser,
      tools: weatherTools,
      finishReason: "stop",
      callIdSeed: "s",
    });
    expect(result).toEqual({
      message: {
        role: "assistant",
        content: "It is late.",
        reasoning_content: `I could use ${inside} but no.`,
      },
      issues: [],
      finishReason: "stop",
    });
  });
});

describe("deepseekv3 specifics", () => {
  it("should accept arguments without a code fence", () => {
    const text = `${BEGIN}<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n{"tz": "UTC"}<｜tool▁call▁end｜>${END}`;
    expect(deepseekV3ToolCallParser.parse({ text, tools: weatherTools, finishReason: "stop" }).calls).toEqual(
      [{ callIndex: 0, name: "get_time", arguments: '{"tz":"UTC"}' }],
    );
  });

  it("should report an unterminated code fence", () => {
    const raw =
      '<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{"tz": "UTC"}<｜tool▁call▁end｜>';
    expect(
      deepseekV3ToolCallParser.parse({ text: raw, tools: weatherTools, finishReason: "stop" }).failures,
    ).toEqual([
      {
        callIndex: 0,
        kind: "malformed_tool_call",
        reason: "unterminated ``` code fence around the arguments",
        raw,
      },
    ]);
  });
});
