import type { ChatMessage } from "@relax/chat";
import { stableStringify } from "@relax/chat/internal";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serializeMessage } from "./serialize-message";

const text = fc.string({ unit: "grapheme", maxLength: 8 });
const toolCall = fc.record(
  {
    id: fc.oneof(text, fc.constant(null)),
    type: fc.constantFrom("function", "other"),
    function: fc.record(
      { name: text, arguments: fc.oneof(text, fc.constant('{"b": 1, "a": "é"}')) },
      { requiredKeys: ["name"] },
    ),
    extra: fc.integer(),
  },
  { requiredKeys: ["id", "type", "function"] },
);
const message = fc.record(
  {
    role: fc.constantFrom("system", "user", "assistant", "tool"),
    content: fc.oneof(text, fc.constant(null), fc.array(fc.record({ type: fc.constant("text"), text }))),
    reasoning_content: fc.oneof(text, fc.constant(undefined), fc.constant(null)),
    tool_calls: fc.oneof(fc.array(toolCall, { maxLength: 2 }), fc.constant(undefined)),
    tool_call_id: fc.oneof(text, fc.constant(undefined)),
    name: text,
  },
  { requiredKeys: ["role", "content"] },
);

describe("serializeMessage", () => {
  it("should equal stableStringify for every message, canonical or not", () => {
    fc.assert(
      fc.property(message, (value) => {
        expect(serializeMessage(value as unknown as ChatMessage)).toBe(stableStringify(value));
      }),
      { numRuns: 2000 },
    );
  });

  it("should write the canonical shape in sorted key order", () => {
    const value: ChatMessage = {
      role: "assistant",
      content: "é \u2028 \ud83d",
      reasoning_content: "r",
      tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: '{"a":1}' } }],
    };
    expect(serializeMessage(value)).toBe(
      '{"content":"é \u2028 \\ud83d","reasoning_content":"r","role":"assistant","tool_calls":[{"function":{"arguments":"{\\"a\\":1}","name":"f"},"id":"c1","type":"function"}]}',
    );
    expect(serializeMessage(value)).toBe(stableStringify(value));
  });
});
