import { describe, expect, it } from "vitest";
import { convertAnthropicMessagesRequest } from "../anthropic-messages/convert-anthropic-messages-request";
import { convertChatCompletionsRequest } from "../chat-completions/convert-chat-completions-request";
import { convertResponsesRequest } from "../responses/convert-responses-request";
import { readResponseFormat } from "./read-response-format";

const schema = { type: "object", properties: { answer: { type: "string" } } };
const jsonSchema = JSON.stringify(schema);

describe("readResponseFormat", () => {
  it("should read each protocol's schema spelling and json_object", () => {
    expect(readResponseFormat({ type: "json_schema", json_schema: { name: "a", schema } }, "p")).toEqual({
      path: "p",
      jsonSchema,
    });
    expect(readResponseFormat({ type: "json_schema", schema }, "p")).toEqual({ path: "p", jsonSchema });
    expect(readResponseFormat({ type: "json_object" }, "p")).toEqual({
      path: "p",
      jsonSchema: '{"type":"object"}',
    });
    expect(readResponseFormat({ type: "text" }, "p")).toBeUndefined();
    expect(readResponseFormat({ type: "json_schema" }, "p")).toBeUndefined();
  });

  it("should mark a format whose tool_choice forbids tool calls, in every protocol's spelling", () => {
    const format = { type: "json_schema", schema };
    expect(readResponseFormat(format, "p", "none")).toEqual({ path: "p", jsonSchema, toolChoiceNone: true });
    expect(readResponseFormat(format, "p", { type: "none" })).toEqual({
      path: "p",
      jsonSchema,
      toolChoiceNone: true,
    });
    for (const toolChoice of [undefined, "auto", "required", { type: "auto" }, { type: "any" }]) {
      expect(readResponseFormat(format, "p", toolChoice)).toEqual({ path: "p", jsonSchema });
    }
  });

  it("should pass tool_choice from the Chat, Responses and Anthropic converters", () => {
    const tools = [{ type: "function", function: { name: "f", parameters: { type: "object" } } }];
    const chat = convertChatCompletionsRequest({
      messages: [{ role: "user", content: "hi" }],
      tools,
      tool_choice: "none",
      response_format: { type: "json_schema", json_schema: { name: "a", schema } },
    });
    expect(chat.responseFormat).toEqual({ path: "response_format", jsonSchema, toolChoiceNone: true });
    const responses = convertResponsesRequest({
      input: "hi",
      tools: [{ type: "function", name: "f", parameters: { type: "object" } }],
      tool_choice: "none",
      text: { format: { type: "json_schema", name: "a", schema } },
    });
    expect(responses.responseFormat).toEqual({ path: "text.format", jsonSchema, toolChoiceNone: true });
    const anthropic = convertAnthropicMessagesRequest({
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }],
      tools: [{ name: "f", input_schema: { type: "object" } }],
      tool_choice: { type: "none" },
      output_config: { format: { type: "json_schema", schema } },
    });
    expect(anthropic.responseFormat).toEqual({
      path: "output_config.format",
      jsonSchema,
      toolChoiceNone: true,
    });
    const auto = convertChatCompletionsRequest({
      messages: [{ role: "user", content: "hi" }],
      tools,
      response_format: { type: "json_schema", json_schema: { name: "a", schema } },
    });
    expect(auto.responseFormat).toEqual({ path: "response_format", jsonSchema });
  });
});
