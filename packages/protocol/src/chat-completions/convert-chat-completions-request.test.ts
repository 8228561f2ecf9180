import { EMPTY_TOOL_PARAMETERS, EMPTY_TOOL_RESULT } from "@relax/chat/internal";
import { describe, expect, it } from "vitest";
import { convertChatCompletionsRequest } from "./convert-chat-completions-request";

const user = { role: "user", content: "hi" };

describe("convertChatCompletionsRequest", () => {
  it("should prefer max_completion_tokens over max_tokens and fall back to max_tokens", () => {
    expect(
      convertChatCompletionsRequest({ messages: [user], max_completion_tokens: 10, max_tokens: 99 }).request
        .maxTokens,
    ).toBe(10);
    expect(convertChatCompletionsRequest({ messages: [user], max_tokens: 99 }).request.maxTokens).toBe(99);
    expect(convertChatCompletionsRequest({ messages: [user], max_tokens: null }).request).not.toHaveProperty(
      "maxTokens",
    );
  });

  it("should read stop, seed, logprobs, stream and model", () => {
    expect(
      convertChatCompletionsRequest({
        messages: [user],
        stop: "END",
        seed: -3,
        logprobs: false,
        stream: true,
        model: "qwen",
      }).request,
    ).toEqual({
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      chatTemplateKwargs: {},
      stream: true,
      stop: ["END"],
      seed: -3,
      logprobs: false,
      model: "qwen",
    });
    const plain = convertChatCompletionsRequest({ messages: [user], stop: [], model: null }).request;
    expect(plain).toEqual({
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      chatTemplateKwargs: {},
      stream: false,
    });
  });

  it("should accept an assistant `reasoning` field as reasoning_content (@openai/agents sends it back)", () => {
    const { request } = convertChatCompletionsRequest({
      messages: [
        user,
        { role: "assistant", content: "ok", reasoning: "think" },
        { role: "assistant", content: "ok", reasoning: "x", reasoning_content: "wins" },
      ],
    });
    expect(request.messages.slice(1)).toEqual([
      { role: "assistant", content: "ok", reasoning_content: "think" },
      { role: "assistant", content: "ok", reasoning_content: "wins" },
    ]);
  });

  it("should map developer to system, keep tool ids and give empty tool results a stable content", () => {
    const { request } = convertChatCompletionsRequest({
      messages: [
        { role: "developer", content: "be brief" },
        user,
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "c1", type: "function", function: { name: "f", arguments: '{"b": 1.0, "a": [true]}' } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: null },
      ],
    });
    expect(request.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "f", arguments: '{"a":[true],"b":1}' } },
        ],
      },
      { role: "tool", content: EMPTY_TOOL_RESULT, tool_call_id: "c1" },
    ]);
  });

  it("should keep function tools, drop others with a warning, and canonicalise kwargs", () => {
    const { request, warnings } = convertChatCompletionsRequest({
      messages: [user],
      tools: [{ type: "web_search_preview" }, { type: "function", function: { name: "ping", strict: true } }],
      chat_template_kwargs: { enable_thinking: false, b: { z: 1, a: 2 } },
    });
    expect(request.tools).toEqual([
      { type: "function", function: { name: "ping", parameters: EMPTY_TOOL_PARAMETERS } },
    ]);
    expect(JSON.stringify(request.chatTemplateKwargs)).toBe('{"b":{"a":2,"z":1},"enable_thinking":false}');
    expect(warnings).toEqual([
      {
        type: "dropped-tool",
        path: "tools[0]",
        message: 'tools[0] is dropped: only function tools are supported (type "web_search_preview")',
      },
    ]);
  });

  it("should warn about ignored and unknown fields but not about null ones", () => {
    const { warnings } = convertChatCompletionsRequest({
      messages: [user],
      temperature: null,
      top_p: 0.9,
      n: 1,
      x_custom: true,
      stream_options: { include_usage: true },
    });
    expect(warnings.map((warning) => warning.message)).toEqual([
      "top_p is ignored: sampling parameters come from the rollout configuration",
      "n is ignored: one choice is generated per request",
      "x_custom is ignored: not part of the Relax model API",
      "stream_options is ignored: usage is always included",
    ]);
  });
});
