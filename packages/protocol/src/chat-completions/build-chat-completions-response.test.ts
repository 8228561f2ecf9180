import { describe, expect, it } from "vitest";
import { counterIds, TOOL_TURN } from "../../test/support/scripted-generate";
import { buildAnthropicMessagesResponse } from "../anthropic-messages/build-anthropic-messages-response";
import { buildResponsesResponse } from "../responses/build-responses-response";
import { buildChatCompletionsResponse } from "./build-chat-completions-response";

const request = { messages: [], tools: [], chatTemplateKwargs: {}, stream: false };
const context = () => ({ id: "reply_1", model: "qwen3-8b", created: 1_767_225_600, createId: counterIds() });
/** A turn cut by the length limit after one complete call (the parser kept it). */
const LENGTH_WITH_CALL = { ...TOOL_TURN, finishReason: "length" as const };

describe("replies for a length cut", () => {
  it("should never report a tool call finish in any protocol", () => {
    expect(
      buildChatCompletionsResponse({ turn: LENGTH_WITH_CALL, request, context: context() }).choices[0]
        .finish_reason,
    ).toBe("length");
    const response = buildResponsesResponse({ turn: LENGTH_WITH_CALL, request, context: context() });
    expect([response.status, response.incomplete_details]).toEqual([
      "incomplete",
      { reason: "max_output_tokens" },
    ]);
    expect(buildAnthropicMessagesResponse({ turn: LENGTH_WITH_CALL, context: context() }).stop_reason).toBe(
      "max_tokens",
    );
  });
});

describe("buildChatCompletionsResponse", () => {
  it("should render content null for a tool-call-only turn and logprobs only when asked", () => {
    const turn = {
      ...TOOL_TURN,
      message: { role: "assistant" as const, content: "", tool_calls: TOOL_TURN.message.tool_calls },
      logprobs: [{ token: "<tool_call>", logprob: -0.01, bytes: [60] }],
    };
    expect(
      buildChatCompletionsResponse({ turn, request: { ...request, logprobs: true }, context: context() }),
    ).toEqual({
      id: "reply_1",
      object: "chat.completion",
      created: 1_767_225_600,
      model: "qwen3-8b",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: null, tool_calls: TOOL_TURN.message.tool_calls },
          logprobs: {
            content: [{ token: "<tool_call>", logprob: -0.01, bytes: [60], top_logprobs: [] }],
            refusal: null,
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: {
        prompt_tokens: 120,
        completion_tokens: 34,
        total_tokens: 154,
        prompt_tokens_details: { cached_tokens: 96 },
      },
    });
    expect(
      buildChatCompletionsResponse({ turn, request, context: context() }).choices[0].logprobs,
    ).toBeNull();
  });

  it("should render an empty turn as empty text", () => {
    const turn = {
      message: { role: "assistant" as const, content: "" },
      finishReason: "stop" as const,
      usage: { promptTokens: 3, completionTokens: 1 },
    };
    expect(buildChatCompletionsResponse({ turn, request, context: context() }).choices[0].message).toEqual({
      role: "assistant",
      content: "",
    });
    expect(buildResponsesResponse({ turn, request, context: context() }).output).toEqual([
      {
        type: "message",
        id: "msg_0001",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: "", annotations: [], logprobs: [] }],
      },
    ]);
    expect(buildAnthropicMessagesResponse({ turn, context: context() }).content).toEqual([]);
  });
});
