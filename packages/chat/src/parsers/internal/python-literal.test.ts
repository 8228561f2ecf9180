import { describe, expect, it } from "vitest";
import { stableStringify } from "../../canonical/stable-stringify";
import { parsePythonLiteral, scanPythonCallList } from "./python-literal";

const literal = (text: string) => {
  const result = parsePythonLiteral(text);
  return result.ok ? stableStringify(result.value) : result;
};

describe("Python literal reader", () => {
  it.each([
    ["'single'", '"single"'],
    ['"double \\"q\\""', '"double \\"q\\""'],
    ["'''tri\nple'''", '"tri\\nple"'],
    ["r'raw\\n'", '"raw\\\\n"'],
    ["'a' \"b\"", '"ab"'],
    ["'\\x41\\u4e2d\\U0001F600\\101\\q'", '"A中😀A\\\\q"'],
    ["1_000", "1000"],
    ["0x1F", "31"],
    ["0o17", "15"],
    ["0b101", "5"],
    ["-2.50", "-2.5"],
    ["1e3", "1000"],
    [".5", "0.5"],
    ["12345678901234567890123", "12345678901234567890123"],
    ["True", "true"],
    ["None", "null"],
    ["[1, (2, 3), (4,), ()]", "[1,[2,3],[4],[]]"],
    ["(5)", "5"],
    ["{'b': 1, 'a': {'c': [None]},}", '{"a":{"c":[null]},"b":1}'],
    ["{'__proto__': 1}", '{"__proto__":1}'],
  ])("should read %s", (text, expected) => {
    expect(literal(text)).toBe(expected);
  });

  it.each([
    ["{1: 'a'}", "dict keys must be strings", 1],
    ["{'a'}", "sets are not supported", 4],
    ["{'a': 1, 'a': 2}", 'duplicate key "a"', 9],
    ["1j", "complex numbers are not supported", 1],
    ["01 ", "leading zeros in a decimal integer", 2],
    ["len", "len is not a literal", 0],
    ["'a\nb'", "newline in a single-quoted string", 2],
    ["1 2", "unexpected trailing characters", 2],
  ])("should reject %s", (text, reason, offset) => {
    expect(parsePythonLiteral(text)).toEqual({ ok: false, atEnd: false, offset, reason });
  });

  it("should treat a token that may still grow at the end of the input as cut off", () => {
    // "01" could be the start of "01.5", so at the very end it is a cut, not a syntax error.
    expect(parsePythonLiteral("01")).toEqual({
      ok: false,
      atEnd: true,
      offset: 2,
      reason: "unexpected end of input",
    });
  });

  it("should read a call list with keyword arguments and dotted names", () => {
    const result = scanPythonCallList('[a.b(x=1, y="z"), c()] tail', 0);
    expect(result.ok && result.end).toBe(22);
    expect(
      result.ok && result.value.map((c) => ({ name: c.name, args: stableStringify(c.arguments) })),
    ).toEqual([
      { name: "a.b", args: '{"x":1,"y":"z"}' },
      { name: "c", args: "{}" },
    ]);
  });

  it.each([
    ["[f(1)]", false, "positional arguments are not supported; use key=value", 3],
    ["[f(a=1, a=2)]", false, "keyword argument a repeated", 8],
    ["[f(a=x)]", false, "x is not a literal", 5],
    ["[f(a='x", true, "unexpected end of input", 7],
    ["[f(a", true, "unexpected end of input", 4],
  ])("should reject the call list %s", (text, atEnd, reason, offset) => {
    expect(scanPythonCallList(text, 0)).toEqual({ ok: false, atEnd, offset, reason });
  });
});
