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

  it("should report stop_sequence for a stop turn that ended on a stop string, unless it called tools", () => {
    expect(
      mapAnthropicMessagesFinishReason({ finishReason: "stop", hasToolCalls: false, stopSequence: "##" }),
    ).toBe("stop_sequence");
    expect(
      mapAnthropicMessagesFinishReason({ finishReason: "stop", hasToolCalls: true, stopSequence: "##" }),
    ).toBe("tool_use");
    expect(
      mapAnthropicMessagesFinishReason({ finishReason: "length", hasToolCalls: false, stopSequence: "##" }),
    ).toBe("max_tokens");
  });

  it("should reject a value outside the canonical union", () => {
    expect(() =>
      mapAnthropicMessagesFinishReason({ finishReason: "abort" as never, hasToolCalls: true }),
    ).toThrow('unexpected value "abort"');
  });
});
