import { CanonicalizationError } from "../../canonical/canonicalization-error";
import {
  canonicalNumberLiteral,
  hasLoneSurrogate,
  JsonNumberLiteral,
  type StrictJsonValue,
} from "../../canonical/strict-json";

/** A pythonic call `name(key=literal, …)`, its keyword arguments as JSON values. */
export interface PythonCall {
  name: string;
  arguments: Record<string, StrictJsonValue>;
  start: number;
  end: number;
}

/** Result of a Python-syntax scan: the value and where it ended, or where and why it failed. */
export type PythonScanResult<T> =
  | { ok: true; value: T; end: number }
  | { ok: false; atEnd: boolean; offset: number; reason: string };

class PythonSyntaxFailure {
  constructor(
    readonly atEnd: boolean,
    readonly offset: number,
    readonly reason: string,
  ) {}
}

const IDENTIFIER = /[\p{L}_][\p{L}\p{N}_]*/uy;
const DECIMAL = /(?:\d(?:_?\d)*)?(?:\.(?:\d(?:_?\d)*)?)?(?:[eE][+-]?\d(?:_?\d)*)?/y;
const PREFIXED_INT = /0(?:[xX](?:_?[0-9a-fA-F])+|[oO](?:_?[0-7])+|[bB](?:_?[01])+)/y;
const MAX_DEPTH = 512;

/**
 * A small reader for the Python literal subset that `ast.literal_eval` accepts and that maps to JSON:
 * strings (all quote styles, `r`/`u` prefixes, escapes, implicit concatenation), ints (decimal, hex,
 * octal, binary, `_` separators), floats, `True`/`False`/`None`, lists, tuples (as arrays) and dicts with
 * string keys. Sets, bytes, complex numbers and non-string dict keys are rejected. Linear time, no regex
 * backtracking beyond single tokens.
 */
class PythonReader {
  pos: number;

  constructor(
    readonly text: string,
    start: number,
    readonly limit: number,
  ) {
    this.pos = start;
  }

  fail(reason: string): never {
    const atEnd = this.pos >= this.limit;
    throw new PythonSyntaxFailure(atEnd, this.pos, atEnd ? "unexpected end of input" : reason);
  }

  skipSpace(): void {
    while (this.pos < this.limit) {
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.pos++;
      else if (c === 0x5c && this.text[this.pos + 1] === "\n") this.pos += 2;
      else break;
    }
  }

  peek(): string | undefined {
    return this.pos < this.limit ? this.text[this.pos] : undefined;
  }

  expect(char: string): void {
    this.skipSpace();
    if (this.peek() !== char) this.fail(`expected '${char}'`);
    this.pos++;
  }

  identifier(): string | undefined {
    IDENTIFIER.lastIndex = this.pos;
    const match = IDENTIFIER.exec(this.text);
    if (match === null || this.pos + match[0].length > this.limit) return undefined;
    this.pos += match[0].length;
    return match[0];
  }

  value(depth: number): StrictJsonValue {
    this.skipSpace();
    if (depth > MAX_DEPTH) this.fail("nesting too deep");
    const c = this.peek();
    if (c === undefined) return this.fail("unexpected end of input");
    if (c === "[") return this.sequence("]", depth);
    if (c === "(") return this.parenthesised(depth);
    if (c === "{") return this.dict(depth);
    if (c === "-" || c === "+") {
      this.pos++;
      this.skipSpace();
      const operand = this.value(depth + 1);
      if (!(operand instanceof JsonNumberLiteral)) this.fail(`unary ${c} applies only to numbers`);
      if (c === "+" || operand.literal === "0") return operand;
      return new JsonNumberLiteral(
        operand.literal.startsWith("-") ? operand.literal.slice(1) : `-${operand.literal}`,
      );
    }
    if (c === '"' || c === "'") return this.strings();
    if ((c >= "0" && c <= "9") || c === ".") return this.number();
    const start = this.pos;
    const word = this.identifier();
    if (word === undefined) return this.fail(`unexpected character ${JSON.stringify(c)}`);
    if (word === "True") return true;
    if (word === "False") return false;
    if (word === "None") return null;
    if (/^[rRuU]$/.test(word) && (this.peek() === '"' || this.peek() === "'")) {
      this.pos = start;
      return this.strings();
    }
    this.pos = start;
    return this.fail(`${word} is not a literal`);
  }

  sequence(close: "]" | ")", depth: number): StrictJsonValue[] {
    this.pos++; // opening bracket
    const items: StrictJsonValue[] = [];
    while (true) {
      this.skipSpace();
      if (this.peek() === close) {
        this.pos++;
        return items;
      }
      items.push(this.value(depth + 1));
      this.skipSpace();
      if (this.peek() === ",") {
        this.pos++;
        continue;
      }
      if (this.peek() === close) {
        this.pos++;
        return items;
      }
      this.fail(`expected ',' or '${close}'`);
    }
  }

  parenthesised(depth: number): StrictJsonValue {
    // `(x)` is x, `(x,)` and `(x, y)` are tuples, `()` is the empty tuple.
    const open = this.pos;
    this.pos++;
    this.skipSpace();
    if (this.peek() === ")") {
      this.pos++;
      return [];
    }
    const first = this.value(depth + 1);
    this.skipSpace();
    if (this.peek() === ")") {
      this.pos++;
      return first;
    }
    this.pos = open;
    return this.sequence(")", depth);
  }

  dict(depth: number): Record<string, StrictJsonValue> {
    this.pos++;
    const out: Record<string, StrictJsonValue> = Object.create(null);
    while (true) {
      this.skipSpace();
      if (this.peek() === "}") {
        this.pos++;
        return out;
      }
      const keyStart = this.pos;
      const key = this.value(depth + 1);
      if (typeof key !== "string") {
        this.pos = keyStart;
        this.fail("dict keys must be strings");
      }
      this.skipSpace();
      if (this.peek() !== ":")
        this.fail(Object.keys(out).length === 0 ? "sets are not supported" : "expected ':'");
      this.pos++;
      if (Object.hasOwn(out, key)) {
        this.pos = keyStart;
        this.fail(`duplicate key ${JSON.stringify(key)}`);
      }
      out[key] = this.value(depth + 1);
      this.skipSpace();
      if (this.peek() === ",") {
        this.pos++;
        continue;
      }
      if (this.peek() === "}") {
        this.pos++;
        return out;
      }
      this.fail("expected ',' or '}'");
    }
  }

  number(): JsonNumberLiteral {
    const start = this.pos;
    PREFIXED_INT.lastIndex = start;
    const prefixed = PREFIXED_INT.exec(this.text);
    if (prefixed !== null && start + prefixed[0].length <= this.limit) {
      this.pos += prefixed[0].length;
      return new JsonNumberLiteral(
        canonicalNumberLiteral(BigInt(prefixed[0].replaceAll("_", "")).toString(), "value"),
      );
    }
    DECIMAL.lastIndex = start;
    const match = DECIMAL.exec(this.text);
    const literal = match?.[0] ?? "";
    if (literal === "" || literal === "." || start + literal.length > this.limit) this.fail("invalid number");
    this.pos += literal.length;
    const next = this.peek();
    if (next === "j" || next === "J") this.fail("complex numbers are not supported");
    const digits = literal.replaceAll("_", "");
    if (/^\d+$/.test(digits)) {
      if (/^0+\d/.test(digits) && !/^0+$/.test(digits)) this.fail("leading zeros in a decimal integer");
      return new JsonNumberLiteral(canonicalNumberLiteral(BigInt(digits).toString(), "value"));
    }
    const value = Number(digits);
    if (!Number.isFinite(value)) this.fail(`number ${literal} is not finite`);
    return new JsonNumberLiteral(canonicalNumberLiteral(JSON.stringify(value), "value"));
  }

  strings(): string {
    let out = this.string();
    // Implicit concatenation: "a" "b" == "ab".
    while (true) {
      const save = this.pos;
      this.skipSpace();
      const c = this.peek();
      const prefixed =
        (c === "r" || c === "R" || c === "u" || c === "U") && /["']/.test(this.text[this.pos + 1] ?? "");
      if (c === '"' || c === "'" || prefixed) out += this.string();
      else {
        this.pos = save;
        return out;
      }
    }
  }

  string(): string {
    let raw = false;
    const first = this.peek();
    if (first === "r" || first === "R") {
      raw = true;
      this.pos++;
    } else if (first === "u" || first === "U") this.pos++;
    const quote = this.peek()!;
    const triple = this.text.startsWith(quote.repeat(3), this.pos) && this.pos + 3 <= this.limit;
    const delimiter = triple ? quote.repeat(3) : quote;
    this.pos += delimiter.length;
    let out = "";
    while (true) {
      if (this.pos >= this.limit) this.fail("unterminated string");
      const c = this.text[this.pos]!;
      if (this.text.startsWith(delimiter, this.pos) && this.pos + delimiter.length <= this.limit) {
        this.pos += delimiter.length;
        if (hasLoneSurrogate(out)) this.fail("string contains a lone surrogate");
        return out;
      }
      if (c === "\n" && !triple) this.fail("newline in a single-quoted string");
      if (c !== "\\") {
        out += c;
        this.pos++;
        continue;
      }
      if (this.pos + 1 >= this.limit) {
        this.pos = this.limit;
        this.fail("unterminated string");
      }
      const e = this.text[this.pos + 1]!;
      if (raw) {
        out += c + e;
        this.pos += 2;
        continue;
      }
      this.pos += 2;
      out += this.escape(e);
    }
  }

  escape(e: string): string {
    switch (e) {
      case "\n":
        return "";
      case "\\":
      case "'":
      case '"':
        return e;
      case "a":
        return "\x07";
      case "b":
        return "\b";
      case "f":
        return "\f";
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "t":
        return "\t";
      case "v":
        return "\v";
      case "x":
        return this.hexEscape(2);
      case "u":
        return this.hexEscape(4);
      case "U":
        return this.hexEscape(8);
      default: {
        if (e >= "0" && e <= "7") {
          let digits = e;
          while (digits.length < 3 && /[0-7]/.test(this.text[this.pos] ?? "") && this.pos < this.limit) {
            digits += this.text[this.pos];
            this.pos++;
          }
          return String.fromCodePoint(Number.parseInt(digits, 8));
        }
        // Python keeps unknown escapes verbatim ("\d" is backslash + d).
        return `\\${e}`;
      }
    }
  }

  hexEscape(length: number): string {
    const hex = this.text.slice(this.pos, Math.min(this.pos + length, this.limit));
    if (hex.length < length) {
      this.pos = this.limit;
      this.fail("unterminated string");
    }
    if (!/^[0-9a-fA-F]+$/.test(hex)) this.fail("invalid hex escape");
    const code = Number.parseInt(hex, 16);
    if (code > 0x10ffff) this.fail("invalid code point escape");
    this.pos += length;
    return String.fromCodePoint(code);
  }

  call(): PythonCall {
    this.skipSpace();
    const start = this.pos;
    let name = this.identifier();
    if (name === undefined) return this.fail("expected a function name");
    while (this.peek() === "." && this.pos + 1 < this.limit) {
      this.pos++;
      const part = this.identifier();
      if (part === undefined) this.fail("expected a name after '.'");
      name += `.${part}`;
    }
    this.expect("(");
    const args: Record<string, StrictJsonValue> = Object.create(null);
    while (true) {
      this.skipSpace();
      if (this.peek() === ")") {
        this.pos++;
        return { name, arguments: args, start, end: this.pos };
      }
      const keyStart = this.pos;
      const key = this.identifier();
      this.skipSpace();
      if (key === undefined || this.peek() !== "=" || this.text[this.pos + 1] === "=") {
        if (this.pos >= this.limit) this.fail("unexpected end of input");
        this.pos = keyStart;
        this.fail("positional arguments are not supported; use key=value");
      }
      if (Object.hasOwn(args, key)) {
        this.pos = keyStart;
        this.fail(`keyword argument ${key} repeated`);
      }
      this.pos++; // '='
      args[key] = this.value(1);
      this.skipSpace();
      if (this.peek() === ",") {
        this.pos++;
        continue;
      }
      if (this.peek() === ")") {
        this.pos++;
        return { name, arguments: args, start, end: this.pos };
      }
      this.fail("expected ',' or ')'");
    }
  }

  callList(): PythonCall[] {
    this.skipSpace();
    if (this.peek() !== "[") this.fail("expected '['");
    this.pos++;
    const calls: PythonCall[] = [];
    while (true) {
      this.skipSpace();
      if (this.peek() === "]" && calls.length > 0) {
        this.pos++;
        return calls;
      }
      calls.push(this.call());
      this.skipSpace();
      if (this.peek() === ",") {
        this.pos++;
        continue;
      }
      if (this.peek() === "]") {
        this.pos++;
        return calls;
      }
      this.fail("expected ',' or ']'");
    }
  }
}

function run<T>(
  text: string,
  start: number,
  limit: number,
  read: (reader: PythonReader) => T,
): PythonScanResult<T> {
  const reader = new PythonReader(text, start, limit);
  try {
    const value = read(reader);
    return { ok: true, value, end: reader.pos };
  } catch (error) {
    if (error instanceof PythonSyntaxFailure) {
      return { ok: false, atEnd: error.atEnd, offset: error.offset, reason: error.reason };
    }
    if (CanonicalizationError.isInstance(error)) {
      return { ok: false, atEnd: false, offset: reader.pos, reason: error.reason };
    }
    throw error;
  }
}

/**
 * Reads a pythonic call list `[f(a=1), g(b="x")]` starting at `start` (leading whitespace allowed) and
 * stops right after the closing `]`. Every argument must be a keyword argument with a literal value, as in
 * SGLang's `pythonic` detector.
 */
export function scanPythonCallList(
  text: string,
  start: number,
  limit = text.length,
): PythonScanResult<PythonCall[]> {
  return run(text, start, limit, (reader) => reader.callList());
}

/**
 * Evaluates a whole string as one Python literal (the `ast.literal_eval` fallback SGLang's `qwen3_coder`
 * and `glm45` parsers use for object/array parameters). Surrounding whitespace is allowed.
 */
export function parsePythonLiteral(text: string): PythonScanResult<StrictJsonValue> {
  return run(text, 0, text.length, (reader) => {
    const value = reader.value(0);
    reader.skipSpace();
    if (reader.pos < text.length) reader.fail("unexpected trailing characters");
    return value;
  });
}
