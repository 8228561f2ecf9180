import { describe, expect, it } from "vitest";
import { accumulateChatCompletion } from "../../test/support/accumulate-streams";
import { LENGTH_TURN, TEXT_TURN, TOOL_TURN } from "../../test/support/scripted-generate";
import { registerSseFixtureCases, StandInContextLengthError } from "../../test/support/sse-fixture-cases";
import { describeError } from "../errors/describe-error";
import { buildChatCompletionsSseErrorEvents } from "./chat-completions-sse";

const body = { model: "qwen3-8b", messages: [{ role: "user", content: "Weather in Paris?" }] };

describe("Chat Completions buffered SSE", () => {
  registerSseFixtureCases({
    path: "/v1/chat/completions",
    fixtureDir: new URL("./__fixtures__/", import.meta.url),
    accumulate: accumulateChatCompletion,
    cases: [
      {
        name: "chat-completions-tool-turn",
        body: { ...body, logprobs: true },
        turn: {
          ...TOOL_TURN,
          logprobs: [
            { token: "Let", logprob: -0.25, bytes: [76, 101, 116] },
            { token: " °", logprob: -1.5, bytes: [32, 194, 176] },
          ],
        },
      },
      { name: "chat-completions-text-turn", body, turn: TEXT_TURN },
      { name: "chat-completions-length-turn", body, turn: LENGTH_TURN },
      {
        name: "chat-completions-tool-only-turn",
        body,
        turn: {
          ...TOOL_TURN,
          message: { role: "assistant", content: "", tool_calls: TOOL_TURN.message.tool_calls },
        },
      },
      { name: "chat-completions-context-length-error", body, error: new StandInContextLengthError() },
    ],
  });

  it("should end an error with [DONE] after the OpenAI error body", () => {
    const events = buildChatCompletionsSseErrorEvents(describeError(new Error("engine down")));
    expect(events).toEqual([
      {
        data: '{"error":{"message":"internal error: engine down","type":"server_error","param":null,"code":"internal_error"}}',
      },
      { data: "[DONE]" },
    ]);
  });
});
