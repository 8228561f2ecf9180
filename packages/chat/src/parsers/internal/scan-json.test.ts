import { describe, expect, it } from "vitest";
import { scanJsonValue } from "./scan-json";

describe("scanJsonValue", () => {
  it("should read one value and stop right after it, with spans", () => {
    const text = 'x {"a": [1, "</tool_call>", true, null]} tail';
    const result = scanJsonValue(text, 1);
    expect(result).toEqual({
      ok: true,
      end: 40,
      node: {
        kind: "object",
        start: 2,
        end: 40,
        members: [
          {
            key: "a",
            value: {
              kind: "array",
              start: 8,
              end: 39,
              items: [
                { kind: "number", start: 9, end: 10 },
                { kind: "string", start: 12, end: 26, value: "</tool_call>" },
                { kind: "boolean", start: 28, end: 32, value: true },
                { kind: "null", start: 34, end: 38 },
              ],
            },
          },
        ],
      },
    });
  });

  it("should decode escapes, including surrogate pairs", () => {
    const result = scanJsonValue('"\\u5317\\u4eac \\ud83c\\udf27 \\n\\t\\"\\\\\\/"', 0);
    expect(result.ok && result.node.kind === "string" && result.node.value).toBe('北京 🌧 \n\t"\\/');
  });

  it.each([
    ['{"a": 1', "unexpected end of JSON", 7],
    ['{"a": "unterminated', "unexpected end of JSON", 19],
    ['{"a": tr', "unexpected end of JSON", 8],
    ['{"a": -', "unexpected end of JSON", 7],
    ['["\\u12', "unexpected end of JSON", 6],
  ])("should flag %s as cut off at the end", (text, reason, offset) => {
    expect(scanJsonValue(text, 0)).toEqual({ ok: false, atEnd: true, offset, reason });
  });

  it.each([
    ['{"a": 1,}', "expected a string key", 8],
    ["{'a': 1}", "expected a string key", 1],
    ['{"a" 1}', "expected ':'", 5],
    ["[1 2]", "expected ',' or ']'", 3],
    ['{"a": NaN}', 'unexpected character "N"', 6],
    ['"a\nb"', "control character in string", 2],
    ['"\\x41"', "invalid escape", 1],
    ["01", 'unexpected character "0"', 0],
  ])("should flag %s as a syntax error", (text, reason, offset) => {
    const result = scanJsonValue(text, 0);
    if (text === "01") {
      // "0" is a complete value; what follows is not the scanner's business (raw_decode semantics).
      expect(result).toEqual({ ok: true, end: 1, node: { kind: "number", start: 0, end: 1 } });
      return;
    }
    expect(result).toEqual({ ok: false, atEnd: false, offset, reason });
  });

  it("should respect a limit as the end of the text", () => {
    expect(scanJsonValue('{"a": 1}', 0, 5)).toEqual({
      ok: false,
      atEnd: true,
      offset: 5,
      reason: "unexpected end of JSON",
    });
  });

  it("should report deep nesting as an error instead of overflowing the stack", () => {
    const deep = "[".repeat(100_000);
    expect(scanJsonValue(deep, 0)).toEqual({
      ok: false,
      atEnd: false,
      offset: 513,
      reason: "nesting too deep",
    });
  });
});
