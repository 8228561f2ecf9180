import { describe, expect, it } from "vitest";
import { mapAnthropicMessagesFinishReason } from "./map-anthropic-messages-finish-reason";

describe("mapAnthropicMessagesFinishReason", () => {
  it.each([
    ["stop", false, "end_turn"],
    ["stop", true, "tool_use"],
    ["tool_calls", true, "tool_use"],
    ["tool_calls", false, "end_turn"],
    ["length", false, "max_tokens"],
    ["length", true, "max_tokens"],
  ] as const)("should map %s (tool calls: %s) to %s", (finishReason, hasToolCalls, expected) => {
    expect(mapAnthropicMessagesFinishReason({ finishReason, hasToolCalls })).toBe(expected);
  });

  it("should reject a value outside the canonical union", () => {
    expect(() =>
      mapAnthropicMessagesFinishReason({ finishReason: "abort" as never, hasToolCalls: true }),
    ).toThrow('unexpected value "abort"');
  });
});
