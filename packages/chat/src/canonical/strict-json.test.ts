import { describe, expect, it } from "vitest";
import { CanonicalizationError } from "./canonicalization-error";
import { JsonNumberLiteral, parseStrictJson, StrictJsonParser } from "./strict-json";

function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(CanonicalizationError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error("did not throw");
}

describe("parseStrictJson", () => {
  it("should parse every JSON construct, numbers as canonical literals", () => {
    const value = parseStrictJson(
      ' {"a": [1, -0, 2.50, 1e2, true, false, null], "b": {"c": "x\\ny"}} ',
      "args",
    );
    expect(JSON.parse(JSON.stringify(value))).toEqual({
      a: [{ literal: "1" }, { literal: "0" }, { literal: "2.5" }, { literal: "100" }, true, false, null],
      b: { c: "x\ny" },
    });
    expect((value as { a: unknown[] }).a[0]).toBeInstanceOf(JsonNumberLiteral);
    expect(parseStrictJson("12345678901234567890", "n")).toEqual(
      new JsonNumberLiteral("12345678901234567890"),
    );
  });

  it("should keep a __proto__ key as an ordinary member", () => {
    const value = parseStrictJson('{"__proto__": 1}', "args") as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Object.keys(value)).toEqual(["__proto__"]);
  });

  it("should name the path and offset of what is not strict JSON", () => {
    expect(failure(() => parseStrictJson('{"a":1,"a":2}', "args"))).toBe(
      'args: duplicate key "a" at offset 10',
    );
    expect(failure(() => parseStrictJson("NaN", "args"))).toBe('args: unexpected token "N" at offset 0');
    expect(failure(() => parseStrictJson("1e999", "args"))).toBe(
      "args: number 1e999 is not finite at offset 0",
    );
    expect(failure(() => parseStrictJson("[1,", "args"))).toBe("args: unexpected end of JSON at offset 3");
    expect(failure(() => parseStrictJson("[1 2]", "args"))).toBe("args: expected ',' or ']' at offset 3");
    expect(failure(() => parseStrictJson('{"a" 1}', "args"))).toBe("args: expected ':' at offset 5");
    expect(failure(() => parseStrictJson("{1:2}", "args"))).toBe("args: expected a string key at offset 1");
    expect(failure(() => parseStrictJson('{"a":1 "b"}', "args"))).toBe(
      "args: expected ',' or '}' at offset 7",
    );
    expect(failure(() => parseStrictJson("1 2", "args"))).toBe(
      "args: unexpected trailing characters at offset 2",
    );
    expect(failure(() => parseStrictJson("[".repeat(514), "args"))).toBe(
      "args: nesting too deep at offset 513",
    );
  });
});

describe("StrictJsonParser strings", () => {
  const parseString = (text: string) => {
    const parser = new StrictJsonParser(text, "s");
    return { value: parser.parseString(), pos: parser.pos };
  };

  it("should read every escape and leave the cursor after the closing quote", () => {
    expect(parseString('"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9" tail')).toEqual({
      value: '"\\/\b\f\n\r\té',
      pos: 24,
    });
    expect(parseString('"\\ud83d\\ude00"')).toEqual({ value: "😀", pos: 14 });
  });

  it("should reject bad escapes at the backslash, control characters and lone surrogates", () => {
    expect(failure(() => parseString('"a\\q"'))).toBe("s: invalid escape at offset 2");
    expect(failure(() => parseString('"\\u12x4"'))).toBe("s: invalid \\u escape at offset 3");
    expect(failure(() => parseString('"a\u0001"'))).toBe("s: control character in string at offset 2");
    expect(failure(() => parseString('"abc'))).toBe("s: unterminated string at offset 4");
    expect(failure(() => parseString('"\\ud800"'))).toBe("s: string contains a lone surrogate at offset 8");
  });

  it("should read one escape and move the cursor past it", () => {
    const parser = new StrictJsonParser("\\u0041\\n", "s");
    expect([parser.parseEscape(), parser.pos]).toEqual(["A", 6]);
    expect([parser.parseEscape(), parser.pos]).toEqual(["\n", 8]);
  });
});

describe("StrictJsonParser scalars and whitespace", () => {
  it("should read literals and numbers and skip only JSON whitespace", () => {
    const parser = new StrictJsonParser(" \t\n\r-1.5e1,", "x");
    parser.skipWhitespace();
    expect(parser.pos).toBe(4);
    expect(parser.parseScalar("-")).toEqual(new JsonNumberLiteral("-15"));
    expect(parser.pos).toBe(10);
    const vertical = new StrictJsonParser("\v1", "x");
    vertical.skipWhitespace();
    expect(vertical.pos).toBe(0);
    expect(new StrictJsonParser("false", "x").parseScalar("f")).toBe(false);
    expect(failure(() => new StrictJsonParser("-", "x").parseScalar("-"))).toBe(
      'x: unexpected token "-" at offset 0',
    );
  });
});
