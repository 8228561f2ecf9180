import { describe, expect, it } from "vitest";
import { weatherTools } from "./__fixtures__/weather-tools";
import { InvalidParserInputError } from "./invalid-parser-input-error";
import { type ParseAssistantOutputOptions, parseAssistantOutput } from "./parse-assistant-output";
import { UnknownParserError } from "./unknown-parser-error";

const base = { tools: weatherTools, callIdSeed: "seed-1", finishReason: "stop" } as const;
const qwenCall = (json: string) => `<tool_call>\n${json}\n</tool_call>`;

describe("parseAssistantOutput", () => {
  it("should turn a Qwen3 thinking turn with two calls into a canonical message with deterministic ids", () => {
    const text = `<think>\nThe user wants two cities.\n</think>\n\nLet me check.\n${qwenCall('{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}')}\n${qwenCall('{"name": "get_weather", "arguments": {"days": 1.0, "city": "北京"}}')}<|im_end|>`;
    expect(parseAssistantOutput({ ...base, text, reasoningParser: "qwen3", toolParser: "qwen25" })).toEqual({
      message: {
        role: "assistant",
        content: "Let me check.",
        reasoning_content: "The user wants two cities.",
        tool_calls: [
          {
            id: "call_b60e6a437dbadd52a83901cf",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris","days":2}' },
          },
          {
            id: "call_c704bbbbeba087e1a4899216",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"北京","days":1}' },
          },
        ],
      },
      issues: [],
      finishReason: "tool_calls",
    });
  });

  it("should let a <tool_call> end unclosed qwen3 reasoning and parse the call", () => {
    const text = `<think>\nI need the time.\n${qwenCall('{"name": "get_time", "arguments": {"tz": "UTC"}}')}<|im_end|>`;
    const result = parseAssistantOutput({ ...base, text, reasoningParser: "qwen3", toolParser: "qwen25" });
    expect(result.message.reasoning_content).toBe("I need the time.");
    expect(result.message.content).toBe("");
    expect(result.message.tool_calls?.map((call) => call.function)).toEqual([
      { name: "get_time", arguments: '{"tz":"UTC"}' },
    ]);
    expect(result.finishReason).toBe("tool_calls");
  });

  it("should give the same ids for the same seed and different ids for another seed", () => {
    const text = qwenCall('{"name": "get_time", "arguments": {"tz": "UTC"}}');
    const first = parseAssistantOutput({ ...base, text, toolParser: "qwen25" });
    const again = parseAssistantOutput({ ...base, text, toolParser: "qwen25" });
    const other = parseAssistantOutput({ ...base, callIdSeed: "seed-2", text, toolParser: "qwen25" });
    expect(again.message.tool_calls![0]!.id).toBe(first.message.tool_calls![0]!.id);
    expect(other.message.tool_calls![0]!.id).not.toBe(first.message.tool_calls![0]!.id);
  });

  it("should keep an unknown tool's call and report it", () => {
    const text = qwenCall('{"name": "send_email", "arguments": {"to": "a@b.c"}}');
    const result = parseAssistantOutput({ ...base, text, toolParser: "qwen25" });
    expect(result.message.tool_calls?.map((call) => call.function)).toEqual([
      { name: "send_email", arguments: '{"to":"a@b.c"}' },
    ]);
    expect(result.issues).toEqual([
      {
        kind: "unknown_tool",
        callIndex: 0,
        message: 'tool call 0: "send_email" is not one of the request\'s tools (get_weather, get_time)',
      },
    ]);
    expect(result.finishReason).toBe("tool_calls");
  });

  it("should list reasoning and tool issues in order and never report tool_calls for a cut-off turn", () => {
    const good = qwenCall('{"name": "get_time", "arguments": {}}');
    const bad = qwenCall('{"name": "get_time", "arguments": {]}');
    const text = `<think>plan</think>${bad}\n${good}\n<tool_call>\n{"name": "get_weather", "argu`;
    const result = parseAssistantOutput({
      ...base,
      text,
      finishReason: "length",
      reasoningParser: "qwen3",
      toolParser: "qwen25",
    });
    expect(result.finishReason).toBe("length");
    expect(result.message.content).toBe(`${bad}\n<tool_call>\n{"name": "get_weather", "argu`);
    expect(result.message.tool_calls).toHaveLength(1);
    expect(result.issues).toEqual([
      {
        kind: "malformed_tool_call",
        callIndex: 0,
        message: "tool call 0: invalid JSON: expected a string key at character 35 of the JSON",
        raw: bad,
      },
      {
        kind: "truncated_tool_call",
        callIndex: 2,
        message: "tool call 2: the generation was cut off (finish_reason=length) before </tool_call>",
        raw: '<tool_call>\n{"name": "get_weather", "argu',
      },
    ]);
  });

  it("should report truncated reasoning", () => {
    const result = parseAssistantOutput({
      ...base,
      text: "Let me think about",
      finishReason: "length",
      reasoningParser: "qwen3",
      forceReasoning: true,
      toolParser: "qwen25",
    });
    expect(result).toEqual({
      message: { role: "assistant", content: "", reasoning_content: "Let me think about" },
      issues: [
        {
          kind: "truncated_reasoning",
          message: "the generation was cut off (finish_reason=length) inside the reasoning section",
        },
      ],
      finishReason: "length",
    });
  });

  it("should map abort like length and stop without calls to stop", () => {
    expect(parseAssistantOutput({ ...base, text: "partial", finishReason: "abort" }).finishReason).toBe(
      "length",
    );
    expect(parseAssistantOutput({ ...base, text: "Hello<|im_end|>" })).toEqual({
      message: { role: "assistant", content: "Hello" },
      issues: [],
      finishReason: "stop",
    });
  });

  it("should strip one trailing stop marker of a stopped turn only", () => {
    expect(parseAssistantOutput({ ...base, text: "a<|im_end|><|im_end|>" }).message.content).toBe(
      "a<|im_end|>",
    );
    expect(parseAssistantOutput({ ...base, text: "a</s>", finishReason: "length" }).message.content).toBe(
      "a</s>",
    );
    expect(parseAssistantOutput({ ...base, text: "a<|im_end|>", stopMarkers: [] }).message.content).toBe(
      "a<|im_end|>",
    );
  });

  it("should not run the tool-call parser when the request has no tools", () => {
    const text = qwenCall('{"name": "get_time", "arguments": {}}');
    expect(parseAssistantOutput({ ...base, tools: [], text, toolParser: "qwen25" })).toEqual({
      message: { role: "assistant", content: text },
      issues: [],
      finishReason: "stop",
    });
  });

  it("should omit an empty reasoning_content", () => {
    const result = parseAssistantOutput({
      ...base,
      text: "<think>\n\n</think>\n\nHi",
      reasoningParser: "qwen3",
    });
    expect(result.message).toEqual({ role: "assistant", content: "Hi" });
  });

  it("should accept parser objects as well as names", () => {
    const result = parseAssistantOutput({
      ...base,
      text: "x",
      toolParser: { name: "custom", parse: () => ({ content: "y", calls: [], failures: [] }) },
    });
    expect(result.message.content).toBe("y");
  });

  it("should throw UnknownParserError for an unregistered name", () => {
    expect(() => parseAssistantOutput({ ...base, text: "", toolParser: "qwen2" })).toThrowError(
      'unknown tool-call parser "qwen2"; valid names: qwen25, qwen, hermes, qwen3_coder, step3p5, deepseekv3, deepseekv31, kimi_k2, glm45, glm, glm47, llama3, mistral, pythonic, gpt-oss',
    );
    try {
      parseAssistantOutput({ ...base, text: "", reasoningParser: "r1" });
      expect.unreachable();
    } catch (error) {
      expect(UnknownParserError.isInstance(error)).toBe(true);
      // The base Relax marker, so `RelaxError.isInstance` recognises it too.
      expect((error as Record<symbol, unknown>)[Symbol.for("relax.error")]).toBe(true);
      expect((error as UnknownParserError).parserKind).toBe("reasoning");
    }
  });

  it.each([
    [{ text: 1 }, "text: must be a string"],
    [{ finishReason: "eos" }, 'finishReason: must be one of stop, length, abort, got "eos"'],
    [{ callIdSeed: undefined }, "callIdSeed: must be a string"],
    [{ tools: "x" }, "tools: must be an array of function tools"],
    [{ tools: [{ type: "function", function: {} }] }, "tools[0].function.name: must be a string"],
    [{ forceReasoning: "yes" }, "forceReasoning: must be a boolean"],
    [{ toolParser: 3 }, "toolParser: must be a parser name or a parser object"],
  ])("should reject %o with a typed error naming the option", (patch, message) => {
    const options = { ...base, text: "", ...patch } as unknown as ParseAssistantOutputOptions;
    expect(() => parseAssistantOutput(options)).toThrowError(message);
    try {
      parseAssistantOutput(options);
    } catch (error) {
      expect(InvalidParserInputError.isInstance(error)).toBe(true);
    }
  });
});
