import { EMPTY_TOOL_RESULT } from "@relax/chat/internal";
import { describe, expect, it } from "vitest";
import { convertAnthropicMessagesRequest } from "./convert-anthropic-messages-request";

const base = { model: "m", max_tokens: 256 };

describe("convertAnthropicMessagesRequest", () => {
  it("should join system blocks and read max_tokens, stop_sequences and thinking", () => {
    const { request } = convertAnthropicMessagesRequest({
      ...base,
      system: [
        { type: "text", text: "one" },
        { type: "text", text: "two" },
      ],
      stop_sequences: ["</answer>"],
      thinking: { type: "disabled" },
      messages: [{ role: "user", content: "hi" }],
    });
    expect(request).toEqual({
      messages: [
        { role: "system", content: "one\n\ntwo" },
        { role: "user", content: "hi" },
      ],
      tools: [],
      chatTemplateKwargs: { enable_thinking: false },
      stream: false,
      maxTokens: 256,
      stop: ["</answer>"],
      model: "m",
    });
    expect(
      convertAnthropicMessagesRequest({
        ...base,
        thinking: { type: "adaptive" },
        messages: [{ role: "user", content: "x" }],
      }).request.chatTemplateKwargs,
    ).toEqual({ enable_thinking: true });
  });

  it("should split tool results out of a user message in order", () => {
    const { request } = convertAnthropicMessagesRequest({
      ...base,
      messages: [
        { role: "user", content: "list files" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "", signature: "s0" },
            { type: "thinking", thinking: "ls first", signature: "s1" },
            { type: "thinking", thinking: "then cat", signature: "s2" },
            { type: "redacted_thinking", data: "opaque" },
            { type: "tool_use", id: "toolu_1", name: "ls", input: {} },
            { type: "tool_use", id: "toolu_2", name: "cat", input: { path: "a.txt", lines: 1.0 } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "text", text: "before" },
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              content: [
                { type: "text", text: "a.txt" },
                { type: "image", source: { type: "url", url: "https://x/a.png" } },
              ],
            },
            { type: "tool_result", tool_use_id: "toolu_2", is_error: true },
            { type: "text", text: "<system-reminder>keep going</system-reminder>" },
          ],
        },
        { role: "assistant", content: "done" },
      ],
    });
    expect(request.messages).toEqual([
      { role: "user", content: "list files" },
      {
        role: "assistant",
        content: "",
        reasoning_content: "ls first\n\nthen cat",
        tool_calls: [
          { id: "toolu_1", type: "function", function: { name: "ls", arguments: "{}" } },
          {
            id: "toolu_2",
            type: "function",
            function: { name: "cat", arguments: '{"lines":1,"path":"a.txt"}' },
          },
        ],
      },
      { role: "user", content: "before" },
      {
        role: "tool",
        content: [
          { type: "text", text: "a.txt" },
          { type: "image_url", image_url: { url: "https://x/a.png" } },
        ],
        tool_call_id: "toolu_1",
      },
      { role: "tool", content: EMPTY_TOOL_RESULT, tool_call_id: "toolu_2" },
      { role: "user", content: "<system-reminder>keep going</system-reminder>" },
      { role: "assistant", content: "done" },
    ]);
  });

  it("should turn base64 images into data URIs", () => {
    const { request } = convertAnthropicMessagesRequest({
      ...base,
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: "user",
        content: [{ type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" } }],
      },
    ]);
  });

  it("should keep custom tools, drop server tools, and warn about dropped blocks and ignored fields", () => {
    const { request, warnings } = convertAnthropicMessagesRequest({
      ...base,
      top_k: 20,
      tools: [
        {
          type: "custom",
          name: "Bash",
          description: "run",
          input_schema: { type: "object", properties: { command: { type: "string" } } },
        },
        { type: "bash_20250124", name: "bash" },
      ],
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [
            { type: "redacted_thinking", data: "x" },
            { type: "text", text: "ok" },
          ],
        },
      ],
    });
    expect(request.tools).toEqual([
      {
        type: "function",
        function: {
          name: "Bash",
          description: "run",
          parameters: { type: "object", properties: { command: { type: "string" } } },
        },
      },
    ]);
    expect(warnings.map((warning) => [warning.type, warning.path])).toEqual([
      ["ignored-field", "top_k"],
      ["dropped-content", "messages[1].content[0]"],
      ["dropped-tool", "tools[1]"],
    ]);
  });
});
