import { describe } from "vitest";
import { accumulateAnthropicMessage } from "../../test/support/accumulate-streams";
import { LENGTH_TURN, TEXT_TURN, TOOL_TURN } from "../../test/support/scripted-generate";
import { registerSseFixtureCases, StandInContextLengthError } from "../../test/support/sse-fixture-cases";

const body = {
  model: "qwen3-8b",
  max_tokens: 1024,
  messages: [{ role: "user", content: "Weather in Paris?" }],
};

describe("Anthropic Messages buffered SSE", () => {
  registerSseFixtureCases({
    path: "/v1/messages",
    fixtureDir: new URL("./__fixtures__/", import.meta.url),
    accumulate: accumulateAnthropicMessage,
    cases: [
      { name: "anthropic-messages-tool-turn", body, turn: TOOL_TURN },
      { name: "anthropic-messages-text-turn", body, turn: TEXT_TURN },
      {
        name: "anthropic-messages-stop-sequence-turn",
        body: { ...body, stop_sequences: ["\nObservation:"] },
        turn: { ...TEXT_TURN, stopSequence: "\nObservation:" },
      },
      { name: "anthropic-messages-length-turn", body: { ...body, max_tokens: 5 }, turn: LENGTH_TURN },
      {
        name: "anthropic-messages-tool-only-turn",
        body,
        turn: {
          ...TOOL_TURN,
          message: { role: "assistant", content: "", tool_calls: TOOL_TURN.message.tool_calls },
        },
      },
      { name: "anthropic-messages-context-length-error", body, error: new StandInContextLengthError() },
    ],
  });
});
