import { describe, expect, it } from "vitest";
import { weatherTools } from "../__fixtures__/weather-tools";
import { parseAssistantOutput } from "../parse-assistant-output";
import { llama3ToolCallParser } from "./llama3-tool-call-parser";
import { mistralToolCallParser } from "./mistral-tool-call-parser";
import { hermesToolCallParser, qwen25ToolCallParser } from "./qwen25-tool-call-parser";

const qwenCall = (json: string) => `<tool_call>\n${json}\n</tool_call>`;

describe.each([
  { parser: qwen25ToolCallParser, wrap: qwenCall },
  { parser: hermesToolCallParser, wrap: qwenCall },
  { parser: mistralToolCallParser, wrap: (json: string) => `[TOOL_CALLS] [${json}]` },
  { parser: llama3ToolCallParser, wrap: (json: string) => `<|python_tag|>${json}` },
])("$parser.name: the parameters alias", ({ parser, wrap }) => {
  const parse = (json: string, parametersAlias?: boolean) =>
    parser.parse({
      text: wrap(json),
      tools: weatherTools,
      finishReason: "stop",
      ...(parametersAlias !== undefined ? { parametersAlias } : {}),
    });

  it("should read `parameters` as the arguments", () => {
    expect(parse('{"name": "get_weather", "parameters": {"days": 2, "city": "Paris"}}')).toEqual({
      content: "",
      calls: [{ callIndex: 0, name: "get_weather", arguments: '{"city":"Paris","days":2}' }],
      failures: [],
    });
  });

  it("should report a call whose arguments sit under an unknown key, never read it as {}", () => {
    const json = '{"name": "get_weather", "args": {"city": "Paris"}}';
    const result = parse(json);
    expect(result.calls).toEqual([]);
    expect(result.failures).toEqual([
      {
        callIndex: 0,
        kind: "malformed_tool_call",
        reason: 'the call object has no "arguments" or "parameters" member (found "args")',
        raw: parser.name === "mistral" ? json : wrap(json),
      },
    ]);
  });

  it("should still read a call with only a name as {}", () => {
    expect(parse('{"name": "get_time"}').calls).toEqual([
      { callIndex: 0, name: "get_time", arguments: "{}" },
    ]);
  });
});

describe.each([qwen25ToolCallParser, mistralToolCallParser])(
  "$name with parametersAlias: false",
  (parser) => {
    it("should report `parameters` as malformed", () => {
      const text =
        parser.name === "mistral"
          ? '[TOOL_CALLS] [{"name": "get_weather", "parameters": {"city": "Paris"}}]'
          : qwenCall('{"name": "get_weather", "parameters": {"city": "Paris"}}');
      const result = parser.parse({
        text,
        tools: weatherTools,
        finishReason: "stop",
        parametersAlias: false,
      });
      expect(result.calls).toEqual([]);
      expect(result.failures.map((failure) => failure.reason)).toEqual([
        'the call object has no "arguments" member (found "parameters")',
      ]);
    });
  },
);

describe("parseAssistantOutput: parameters alias", () => {
  const text = qwenCall('{"name": "get_weather", "parameters": {"city": "Paris"}}');

  it("should turn a `parameters` call into a tool call by default", () => {
    const parsed = parseAssistantOutput({
      text,
      toolParser: "qwen25",
      tools: weatherTools,
      finishReason: "stop",
      callIdSeed: "seed",
    });
    expect(parsed.issues).toEqual([]);
    expect(parsed.finishReason).toBe("tool_calls");
    expect(parsed.message.tool_calls?.map((call) => call.function)).toEqual([
      { name: "get_weather", arguments: '{"city":"Paris"}' },
    ]);
  });

  it("should keep the text and record an issue when the alias is off", () => {
    const parsed = parseAssistantOutput({
      text,
      toolParser: "qwen25",
      tools: weatherTools,
      finishReason: "stop",
      callIdSeed: "seed",
      parametersAlias: false,
    });
    expect(parsed.message).toEqual({ role: "assistant", content: text });
    expect(parsed.issues).toEqual([
      {
        kind: "malformed_tool_call",
        callIndex: 0,
        message: 'tool call 0: the call object has no "arguments" member (found "parameters")',
        raw: text,
      },
    ]);
    expect(parsed.finishReason).toBe("stop");
  });
});
