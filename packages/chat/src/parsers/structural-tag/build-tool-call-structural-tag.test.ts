import { describe, expect, it } from "vitest";
import { weatherTools } from "../__fixtures__/weather-tools";
import { buildToolCallStructuralTag, reasoningStart } from "./build-tool-call-structural-tag";

const answerSchema = {
  type: "object",
  properties: { answer: { type: "string" } },
  required: ["answer"],
  additionalProperties: false,
};
const twoTools = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
  {
    type: "function" as const,
    function: { name: "get_time", parameters: { type: "object", properties: { tz: { type: "string" } } } },
  },
];

/** The qwen25 body for {@link twoTools} and {@link answerSchema}, as SGLang receives it. */
const qwen25Body = {
  type: "or",
  elements: [
    {
      type: "tag",
      begin: "<tool_call>\n",
      content: {
        type: "tags_with_separator",
        tags: [
          {
            type: "tag",
            begin: '{"name": "get_weather", "arguments": ',
            content: {
              type: "json_schema",
              json_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
            },
            end: "}",
          },
          {
            type: "tag",
            begin: '{"name": "get_time", "arguments": ',
            content: {
              type: "json_schema",
              json_schema: { type: "object", properties: { tz: { type: "string" } } },
            },
            end: "}",
          },
        ],
        separator: "\n</tool_call>\n<tool_call>\n",
        at_least_one: true,
        stop_after_first: false,
      },
      end: "\n</tool_call>",
    },
    { type: "json_schema", json_schema: answerSchema },
  ],
};

describe("buildToolCallStructuralTag", () => {
  it("should let a qwen25 model call either tool or answer in the schema (exact JSON)", () => {
    const tag = buildToolCallStructuralTag({
      toolCallParser: "qwen25",
      tools: twoTools,
      responseSchema: answerSchema,
    });
    expect(JSON.stringify(tag)).toBe(
      JSON.stringify({
        type: "structural_tag",
        format: {
          type: "or",
          elements: [
            {
              type: "tag",
              begin: "<tool_call>\n",
              content: {
                type: "tags_with_separator",
                tags: [
                  {
                    type: "tag",
                    begin: '{"name": "get_weather", "arguments": ',
                    content: {
                      type: "json_schema",
                      json_schema: {
                        type: "object",
                        properties: { city: { type: "string" } },
                        required: ["city"],
                      },
                    },
                    end: "}",
                  },
                  {
                    type: "tag",
                    begin: '{"name": "get_time", "arguments": ',
                    content: {
                      type: "json_schema",
                      json_schema: { type: "object", properties: { tz: { type: "string" } } },
                    },
                    end: "}",
                  },
                ],
                separator: "\n</tool_call>\n<tool_call>\n",
                at_least_one: true,
                stop_after_first: false,
              },
              end: "\n</tool_call>",
            },
            {
              type: "json_schema",
              json_schema: {
                type: "object",
                properties: { answer: { type: "string" } },
                required: ["answer"],
                additionalProperties: false,
              },
            },
          ],
        },
      }),
    );
  });

  it("should write the same tags for the qwen and hermes parsers", () => {
    for (const toolCallParser of ["qwen", "hermes"]) {
      expect(
        buildToolCallStructuralTag({ toolCallParser, tools: twoTools, responseSchema: answerSchema })?.format,
      ).toEqual(qwen25Body);
    }
  });

  it("should keep one tag per tool, in order, with the tool's own parameters", () => {
    const tag = buildToolCallStructuralTag({
      toolCallParser: "qwen25",
      tools: weatherTools,
      responseSchema: true,
    });
    const format = tag!.format as unknown as { elements: [{ content: { tags: unknown[] } }, unknown] };
    const calls = format.elements[0];
    expect(calls.content.tags).toEqual(
      weatherTools.map((tool) => ({
        type: "tag",
        begin: `{"name": "${tool.function.name}", "arguments": `,
        content: { type: "json_schema", json_schema: tool.function.parameters },
        end: "}",
      })),
    );
  });

  it("should allow a leading <think> block for qwen3 when the template leaves it to the model", () => {
    const tag = buildToolCallStructuralTag({
      toolCallParser: "qwen25",
      tools: twoTools,
      responseSchema: answerSchema,
      reasoningParser: "qwen3",
      promptTail: "<|im_end|>\n<|im_start|>assistant\n",
    });
    expect(tag?.format).toEqual({
      type: "or",
      elements: [
        {
          type: "sequence",
          elements: [
            { type: "tag", begin: "<think>", content: { type: "any_text" }, end: "</think>" },
            { type: "const_string", value: "\n\n" },
            qwen25Body,
          ],
        },
        qwen25Body,
      ],
    });
  });

  it("should start inside the reasoning when the prompt opened <think> or the parser always reasons", () => {
    const opened = {
      type: "sequence",
      elements: [
        { type: "tag", begin: "", content: { type: "any_text" }, end: "</think>" },
        { type: "const_string", value: "\n\n" },
        qwen25Body,
      ],
    };
    const build = (reasoningParser: string, promptTail: string) =>
      buildToolCallStructuralTag({
        toolCallParser: "qwen25",
        tools: twoTools,
        responseSchema: answerSchema,
        reasoningParser,
        promptTail,
      })?.format;
    expect(build("qwen3", "<|im_start|>assistant\n<think>\n")).toEqual(opened);
    expect(build("qwen3-thinking", "<|im_start|>assistant\n")).toEqual(opened);
  });

  it("should read only the generation prompt: a <think> a user or a tool wrote earlier opens nothing", () => {
    expect(
      reasoningStart(
        "qwen3",
        "do?<|im_end|>\n<|im_start|>user\nReply about <think><|im_end|>\n<|im_start|>assistant\n",
      ),
    ).toBe("optional");
    expect(
      reasoningStart(
        "qwen3",
        "<tool_response>\nraw html: <think>\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
      ),
    ).toBe("optional");
    expect(reasoningStart("qwen3", "<|im_start|>assistant\n<think>\n")).toBe("opened");
    expect(reasoningStart("qwen3", "<|im_start|>assistant\n<think>\n\n</think>\n\n")).toBe("none");
    expect(reasoningStart("qwen3-thinking", "<|im_start|>assistant\n")).toBe("opened");
  });

  it("should wrap the answer schema alone in the reasoning block for a parser that always reasons, without tools", () => {
    expect(
      buildToolCallStructuralTag({
        tools: [],
        responseSchema: answerSchema,
        reasoningParser: "qwen3-thinking",
        promptTail: "<|im_start|>assistant\n",
      })?.format,
    ).toEqual({
      type: "sequence",
      elements: [
        { type: "tag", begin: "", content: { type: "any_text" }, end: "</think>" },
        { type: "const_string", value: "\n\n" },
        { type: "json_schema", json_schema: answerSchema },
      ],
    });
  });

  it("should add no reasoning when the prompt closed the <think> block (enable_thinking false)", () => {
    const tag = buildToolCallStructuralTag({
      toolCallParser: "qwen25",
      tools: twoTools,
      responseSchema: answerSchema,
      reasoningParser: "qwen3",
      promptTail: "<|im_start|>assistant\n<think>\n\n</think>\n\n",
    });
    expect(tag?.format).toEqual(qwen25Body);
  });

  it("should answer undefined for a tool-call or reasoning parser it cannot write", () => {
    for (const toolCallParser of ["qwen3_coder", "llama3", "deepseekv3", "gpt-oss", "mistral"]) {
      expect(
        buildToolCallStructuralTag({ toolCallParser, tools: twoTools, responseSchema: answerSchema }),
      ).toBeUndefined();
    }
    expect(
      buildToolCallStructuralTag({
        toolCallParser: "qwen25",
        tools: twoTools,
        responseSchema: answerSchema,
        reasoningParser: "gpt-oss",
      }),
    ).toBeUndefined();
  });
});
