import { describe, expect, it } from "vitest";
import { mapChatCompletionsFinishReason } from "./map-chat-completions-finish-reason";

describe("mapChatCompletionsFinishReason", () => {
  it.each([
    ["stop", false, "stop"],
    ["stop", true, "tool_calls"],
    ["tool_calls", true, "tool_calls"],
    ["tool_calls", false, "stop"],
    ["length", false, "length"],
    ["length", true, "length"],
  ] as const)("should map %s (tool calls: %s) to %s", (finishReason, hasToolCalls, expected) => {
    expect(mapChatCompletionsFinishReason({ finishReason, hasToolCalls })).toBe(expected);
  });

  it("should reject a value outside the canonical union", () => {
    expect(() =>
      mapChatCompletionsFinishReason({ finishReason: "abort" as never, hasToolCalls: false }),
    ).toThrow('unexpected value "abort"');
  });
});
