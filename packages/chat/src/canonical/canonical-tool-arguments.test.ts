import { describe, expect, it } from "vitest";
import { canonicalToolArguments } from "./canonical-tool-arguments";
import { CanonicalizationError } from "./canonicalization-error";

describe("canonicalToolArguments", () => {
  it("should give Python-style spaced, reordered JSON and compact JS JSON the same canonical text", () => {
    expect(canonicalToolArguments('{"c": "d", "a": "b"}')).toBe('{"a":"b","c":"d"}');
    expect(canonicalToolArguments('{"a":"b","c":"d"}')).toBe('{"a":"b","c":"d"}');
    expect(canonicalToolArguments({ c: "d", a: "b" })).toBe('{"a":"b","c":"d"}');
  });

  it("should sort nested keys and keep array order", () => {
    expect(canonicalToolArguments('{"z": {"y": 1, "x": [3, 1, {"b": 2, "a": 1}]}}')).toBe(
      '{"z":{"x":[3,1,{"a":1,"b":2}],"y":1}}',
    );
  });

  it("should write integral floats as integers and keep other numbers", () => {
    expect(canonicalToolArguments('{"a": 1.0, "b": 2.50, "c": -0, "d": 1e2, "e": 1.5e-3}')).toBe(
      '{"a":1,"b":2.5,"c":0,"d":100,"e":0.0015}',
    );
  });

  it("should keep every digit of integers beyond 2^53", () => {
    expect(canonicalToolArguments('{"id": 12345678901234567890}')).toBe('{"id":12345678901234567890}');
  });

  it("should keep non-ASCII characters unescaped", () => {
    expect(canonicalToolArguments('{"city": "\\u5317\\u4eac", "emoji": "😀"}')).toBe(
      '{"city":"北京","emoji":"😀"}',
    );
  });

  it("should sort keys by code point like Python", () => {
    expect(canonicalToolArguments('{"\uffff": 1, "😀": 2, "a": 3}')).toBe('{"a":3,"\uffff":1,"😀":2}');
  });

  it.each([
    ['{"a": 1, "a": 2}', 'duplicate key "a" at offset'],
    ['{"a": NaN}', 'unexpected token "N"'],
    ['{"a": Infinity}', 'unexpected token "I"'],
    ['{"a": 1e999}', "number 1e999 is not finite"],
    ["[1, 2]", "must encode a JSON object, got an array"],
    ['"text"', "must encode a JSON object, got a string"],
    ["42", "must encode a JSON object, got a number"],
    ["null", "must encode a JSON object, got null"],
    ['{"a": "\\ud800"}', "string contains a lone surrogate"],
    ['{"a": 1} x', "unexpected trailing characters"],
    ['{"a": 1,}', "expected a string key"],
    ["", "unexpected end of JSON"],
  ])("should reject %j", (input, reason) => {
    let error: unknown;
    try {
      canonicalToolArguments(input, "messages[1].tool_calls[0].function.arguments");
    } catch (caught) {
      error = caught;
    }
    expect(CanonicalizationError.isInstance(error)).toBe(true);
    expect((error as CanonicalizationError).path).toBe("messages[1].tool_calls[0].function.arguments");
    expect((error as CanonicalizationError).message).toContain(reason);
  });

  it("should keep a __proto__ key as an ordinary member", () => {
    expect(canonicalToolArguments('{"__proto__": {"x": 1}, "a": 2}')).toBe('{"__proto__":{"x":1},"a":2}');
    expect(canonicalToolArguments(JSON.parse('{"__proto__": 1}'))).toBe('{"__proto__":1}');
    expect(() => canonicalToolArguments('{"__proto__": 1, "__proto__": 2}')).toThrow(
      'duplicate key "__proto__"',
    );
  });

  it("should reject non-object arguments that are not strings", () => {
    expect(() => canonicalToolArguments(null)).toThrow(
      "arguments: must be a JSON object or a string holding one, got null",
    );
    expect(() => canonicalToolArguments([1])).toThrow("got an array");
    expect(() => canonicalToolArguments({ a: Number.NaN })).toThrow("arguments.a: number NaN is not finite");
    expect(() => canonicalToolArguments({ a: "\udc00" })).toThrow("lone surrogate");
  });
});
