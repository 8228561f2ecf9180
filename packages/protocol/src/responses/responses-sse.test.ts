import { describe } from "vitest";
import { accumulateResponse } from "../../test/support/accumulate-streams";
import { LENGTH_TURN, TEXT_TURN, TOOL_TURN } from "../../test/support/scripted-generate";
import { registerSseFixtureCases, StandInContextLengthError } from "../../test/support/sse-fixture-cases";

const body = { model: "qwen3-8b", input: "Weather in Paris?" };

describe("Responses buffered SSE", () => {
  registerSseFixtureCases({
    path: "/v1/responses",
    fixtureDir: new URL("./__fixtures__/", import.meta.url),
    accumulate: (events) => accumulateResponse(events).response,
    cases: [
      { name: "responses-tool-turn", body, turn: TOOL_TURN },
      { name: "responses-text-turn", body, turn: TEXT_TURN },
      { name: "responses-length-turn", body: { ...body, max_output_tokens: 5 }, turn: LENGTH_TURN },
      {
        name: "responses-tool-only-turn",
        body,
        turn: {
          ...TOOL_TURN,
          message: { role: "assistant", content: "", tool_calls: TOOL_TURN.message.tool_calls },
        },
      },
      { name: "responses-context-length-error", body, error: new StandInContextLengthError() },
    ],
  });
});
