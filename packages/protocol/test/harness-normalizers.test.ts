import { describe, expect, it } from "vitest";
import {
  convertAnthropicMessagesRequest,
  convertChatCompletionsRequest,
  convertResponsesRequest,
} from "../src/index";
import { stripBillingHeader } from "../src/internal/index";

const BILLING_A = "x-anthropic-billing-header: cc_version=2.1.3.a1b; cc_entrypoint=sdk-cli; cch=9f2c1;";
const BILLING_B = "x-anthropic-billing-header: cc_version=2.1.3.a1b; cc_entrypoint=sdk-cli; cch=04e7d;";
const AGENT_PROMPT = "You are Claude Code, Anthropic's official CLI for Claude.";

/** A Claude Code main-loop body: billing block first, a mid-conversation system entry. */
function claudeCodeBody(billing: string) {
  return {
    model: "qwen3-8b",
    max_tokens: 32000,
    stream: true,
    system: [
      { type: "text", text: billing },
      { type: "text", text: AGENT_PROMPT, cache_control: { type: "ephemeral" } },
    ],
    messages: [
      { role: "user", content: [{ type: "text", text: "Create hello.txt" }] },
      { role: "system", content: "Available agent types for the Agent tool: general-purpose." },
      { role: "user", content: "go on" },
    ],
  };
}

describe("stripBillingHeader", () => {
  it("should remove the header line and the blank lines after it", () => {
    expect(stripBillingHeader(`${BILLING_A}\n\n${AGENT_PROMPT}`)).toBe(AGENT_PROMPT);
  });
  it("should remove a header between paragraphs", () => {
    expect(stripBillingHeader(`A\n\n${BILLING_A}\n\nB`)).toBe("A\n\nB");
  });
  it("should remove a header that is the last line", () => {
    expect(stripBillingHeader(`A\n\n${BILLING_A}`)).toBe("A");
  });
  it("should leave text without the header unchanged, and a mention inside a line alone", () => {
    expect(stripBillingHeader("keep x-anthropic-billing-header: here")).toBe(
      "keep x-anthropic-billing-header: here",
    );
  });
});

describe("Anthropic Messages: Claude Code normalisers", () => {
  it("should drop the billing header and keep mid-conversation system entries in place", () => {
    const { request } = convertAnthropicMessagesRequest(claudeCodeBody(BILLING_A));
    expect(request.messages).toEqual([
      { role: "system", content: AGENT_PROMPT },
      { role: "user", content: "Create hello.txt" },
      { role: "system", content: "Available agent types for the Agent tool: general-purpose." },
      { role: "user", content: "go on" },
    ]);
  });

  it("should give two requests that differ only in the billing nonce the same canonical request", () => {
    const a = convertAnthropicMessagesRequest(claudeCodeBody(BILLING_A)).request;
    const b = convertAnthropicMessagesRequest(claudeCodeBody(BILLING_B)).request;
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it("should keep the header when stripBillingHeader is off", () => {
    const { request } = convertAnthropicMessagesRequest(claudeCodeBody(BILLING_A), {
      normalizers: { stripBillingHeader: false },
    });
    expect(request.messages[0]).toEqual({ role: "system", content: `${BILLING_A}\n\n${AGENT_PROMPT}` });
  });

  it("should refuse a system entry naming its role when systemInMessages is off", () => {
    expect(() =>
      convertAnthropicMessagesRequest(claudeCodeBody(BILLING_A), {
        normalizers: { systemInMessages: false },
      }),
    ).toThrow(
      expect.objectContaining({
        path: "messages[1].role",
        reason:
          'must be "user" or "assistant", got "system"; put system text in the top-level `system` field',
      }),
    );
  });

  it("should accept system text blocks inside messages and merge a leading system entry with `system`", () => {
    const { request } = convertAnthropicMessagesRequest({
      max_tokens: 10,
      system: "S1",
      messages: [
        {
          role: "system",
          content: [
            { type: "text", text: "S2" },
            { type: "text", text: "S3" },
          ],
        },
        { role: "user", content: "hi" },
      ],
    });
    expect(request.messages).toEqual([
      { role: "system", content: "S1\n\nS2\n\nS3" },
      { role: "user", content: "hi" },
    ]);
  });

  it("should name an empty system entry's content", () => {
    expect(() =>
      convertAnthropicMessagesRequest({
        max_tokens: 10,
        messages: [
          { role: "user", content: "hi" },
          { role: "system", content: "" },
        ],
      }),
    ).toThrow(expect.objectContaining({ path: "messages[1].content", reason: "must be non-empty" }));
  });
});

describe("Responses: Codex normalisers", () => {
  const codexBody = {
    model: "gpt-5-codex",
    instructions: "You are Codex.",
    input: [
      { type: "message", role: "developer", content: [{ type: "input_text", text: "<permissions/>" }] },
      { type: "message", role: "developer", content: [{ type: "input_text", text: "<skills/>" }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "<environment_context/>" }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Create hello.txt" }] },
      { type: "function_call", call_id: "call_1", name: "list_files", arguments: "" },
      { type: "function_call_output", call_id: "call_1", output: "hello.txt" },
    ],
  };

  it("should merge instructions and the developer messages into one system message, and read blank arguments as {}", () => {
    const { request } = convertResponsesRequest(codexBody);
    expect(request.messages).toEqual([
      { role: "system", content: "You are Codex.\n\n<permissions/>\n\n<skills/>" },
      { role: "user", content: "<environment_context/>" },
      { role: "user", content: "Create hello.txt" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "list_files", arguments: "{}" } }],
      },
      { role: "tool", content: "hello.txt", tool_call_id: "call_1" },
    ]);
  });

  it("should keep separate system messages when mergeLeadingSystem is off", () => {
    const { request } = convertResponsesRequest(codexBody, { normalizers: { mergeLeadingSystem: false } });
    expect(request.messages.slice(0, 3)).toEqual([
      { role: "system", content: "You are Codex." },
      { role: "system", content: "<permissions/>" },
      { role: "system", content: "<skills/>" },
    ]);
  });

  it("should refuse blank arguments naming the item when emptyToolArguments is off", () => {
    expect(() => convertResponsesRequest(codexBody, { normalizers: { emptyToolArguments: false } })).toThrow(
      expect.objectContaining({ path: "input[4].arguments" }),
    );
  });
});

describe("Chat Completions normalisers", () => {
  const body = {
    messages: [
      { role: "system", content: "S" },
      { role: "developer", content: "D" },
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "now", arguments: "  " } }],
      },
      { role: "tool", tool_call_id: "c1", content: "12:00" },
      { role: "system", content: "reminder" },
      { role: "user", content: "and now?" },
    ],
  };

  it("should merge the leading run, read blank arguments as {} and keep a later system message in place", () => {
    expect(convertChatCompletionsRequest(body).request.messages).toEqual([
      { role: "system", content: "S\n\nD" },
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c1", type: "function", function: { name: "now", arguments: "{}" } }],
      },
      { role: "tool", content: "12:00", tool_call_id: "c1" },
      { role: "system", content: "reminder" },
      { role: "user", content: "and now?" },
    ]);
  });

  it("should refuse blank arguments when emptyToolArguments is off", () => {
    expect(() => convertChatCompletionsRequest(body, { normalizers: { emptyToolArguments: false } })).toThrow(
      expect.objectContaining({ path: "messages[3].tool_calls[0].function.arguments" }),
    );
  });
});

describe("contract-change warnings", () => {
  it("should say that tool_choice none with a response format constrains the reply to the format alone", () => {
    const { warnings, responseFormat } = convertChatCompletionsRequest({
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
      response_format: { type: "json_object" },
      tool_choice: "none",
    });
    expect(warnings.find((warning) => warning.path === "tool_choice")).toEqual({
      type: "contract-change",
      path: "tool_choice",
      message:
        'tool_choice is not honoured: tool_choice "none" is treated as "auto", except that the reply is constrained to the response format alone (no tool call)',
    });
    expect(responseFormat).toEqual({
      path: "response_format",
      jsonSchema: '{"type":"object"}',
      toolChoiceNone: true,
    });
  });

  it("should mark Chat response_format, tool_choice and parallel_tool_calls: false", () => {
    const { warnings, responseFormat } = convertChatCompletionsRequest({
      messages: [{ role: "user", content: "hi" }],
      response_format: { type: "json_schema", json_schema: { name: "out", schema: { type: "object" } } },
      tool_choice: "required",
      parallel_tool_calls: false,
      temperature: 0.3,
    });
    expect(warnings).toEqual([
      {
        type: "contract-change",
        path: "response_format",
        message: 'response_format is not honoured: the reply is not constrained to "json_schema"',
      },
      {
        type: "contract-change",
        path: "tool_choice",
        message: 'tool_choice is not honoured: tool_choice "required" is treated as "auto"',
      },
      {
        type: "contract-change",
        path: "parallel_tool_calls",
        message:
          "parallel_tool_calls is not honoured: the model may still write several tool calls in one turn",
      },
      {
        type: "ignored-field",
        path: "temperature",
        message: "temperature is ignored: sampling parameters come from the rollout configuration",
      },
    ]);
    expect(responseFormat).toEqual({ path: "response_format", jsonSchema: '{"type":"object"}' });
  });

  it("should leave tool_choice auto and a text format as plain ignored fields", () => {
    const { warnings } = convertResponsesRequest({
      input: "hi",
      tool_choice: "auto",
      text: { format: { type: "text" } },
    });
    expect(warnings.map((warning) => warning.type)).toEqual(["ignored-field", "ignored-field"]);
  });

  it("should read Responses text.format and Anthropic output_config.format as the constraint", () => {
    const responses = convertResponsesRequest({
      input: "hi",
      text: { format: { type: "json_schema", name: "t", schema: { type: "object", required: ["title"] } } },
    });
    expect(responses.responseFormat).toEqual({
      path: "text.format",
      jsonSchema: '{"type":"object","required":["title"]}',
    });
    expect(responses.warnings[0]).toEqual({
      type: "contract-change",
      path: "text",
      message: 'text is not honoured: text.format: the reply is not constrained to "json_schema"',
    });
    const anthropic = convertAnthropicMessagesRequest({
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }],
      output_config: { format: { type: "json_schema", schema: { type: "object" } } },
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
    });
    expect(anthropic.responseFormat).toEqual({
      path: "output_config.format",
      jsonSchema: '{"type":"object"}',
    });
    expect(anthropic.warnings.map((warning) => [warning.type, warning.path])).toEqual([
      ["contract-change", "output_config"],
      ["contract-change", "tool_choice"],
    ]);
  });

  it("should read Chat json_object as an object schema", () => {
    const chat = convertChatCompletionsRequest({
      messages: [{ role: "user", content: "hi" }],
      response_format: { type: "json_object" },
    });
    expect(chat.responseFormat).toEqual({ path: "response_format", jsonSchema: '{"type":"object"}' });
  });
});
