import type { ChatMessage } from "@relax/chat";
import { stableStringify } from "@relax/chat/internal";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serializeMessage, updateWithMessage } from "./serialize-message";

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

/** The UTF-8 bytes `updateWithMessage` feeds, and the pieces (as `node:crypto` gets them). */
function fed(value: ChatMessage): { bytes: Buffer; pieces: string[] } {
  const pieces: string[] = [];
  updateWithMessage({ update: (piece: string) => pieces.push(piece) }, value);
  return { bytes: Buffer.concat(pieces.map((piece) => Buffer.from(piece, "utf8"))), pieces };
}

describe("updateWithMessage", () => {
  // Long strings (past the 4,096-character threshold of the unstringified path), clean or with one
  // character JSON escapes (a quote, a backslash, a control character, a lone or paired surrogate).
  const risky = fc.constantFrom(
    '"',
    "\\",
    "\n",
    "\u0000",
    "\u001f",
    "\ud800",
    "\udc00",
    "😀",
    "é",
    "\u2028",
    "",
  );
  const long = fc
    .tuple(text, fc.integer({ min: 300, max: 1_500 }), risky, fc.nat(100))
    .map(([filler, times, odd, at]) => {
      const base = `ab ${filler}`.repeat(times);
      const cut = Math.min(base.length, at * 40);
      return base.slice(0, cut) + odd + base.slice(cut);
    });
  const longMessage = fc.record(
    {
      role: fc.constantFrom("system", "user", "assistant", "tool"),
      content: fc.oneof(long, text),
      reasoning_content: fc.oneof(long, text, fc.constant(undefined)),
      tool_call_id: fc.oneof(text, fc.constant(undefined)),
    },
    { requiredKeys: ["role", "content"] },
  );

  it("should feed exactly the UTF-8 bytes of serializeMessage, for long and short strings", () => {
    fc.assert(
      fc.property(fc.oneof(message, longMessage), (value) => {
        const expected = Buffer.from(serializeMessage(value as unknown as ChatMessage), "utf8");
        expect(fed(value as unknown as ChatMessage).bytes.equals(expected)).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });

  it("should feed a long clean string as it is, and stringify one JSON escapes", () => {
    const clean = "word ".repeat(2_000);
    const { pieces } = fed({ role: "user", content: clean });
    expect(pieces).toEqual(['{"content":', '"', clean, '"', ',"role":"user"}']);
    const quoted = `${clean}"`;
    expect(fed({ role: "user", content: quoted }).pieces).toEqual([
      '{"content":',
      JSON.stringify(quoted),
      ',"role":"user"}',
    ]);
    const lone = `${clean}\ud800`;
    expect(fed({ role: "user", content: lone }).pieces[1]).toBe(`"${clean}\\ud800"`);
  });
});
