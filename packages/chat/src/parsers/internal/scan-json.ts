/**
 * A JSON value located in a larger text: every node keeps its `[start, end)` character span so callers
 * can hand the exact source slice of `arguments` to `canonicalToolArguments` (which keeps big integers
 * digit for digit).
 */
export type JsonNode =
  | { kind: "object"; start: number; end: number; members: JsonMember[] }
  | { kind: "array"; start: number; end: number; items: JsonNode[] }
  | { kind: "string"; start: number; end: number; value: string }
  | { kind: "number"; start: number; end: number }
  | { kind: "boolean"; start: number; end: number; value: boolean }
  | { kind: "null"; start: number; end: number };

/** One `"key": value` member of a {@link JsonNode} object, in source order (duplicates kept). */
export interface JsonMember {
  key: string;
  value: JsonNode;
}

/** Result of {@link scanJsonValue}. */
export type JsonScanResult =
  | { ok: true; node: JsonNode; end: number }
  | {
      ok: false;
      /** True when the text ended before the value did (a cut-off value, not a syntax error). */
      atEnd: boolean;
      /** Offset in the scanned text where scanning failed. */
      offset: number;
      reason: string;
    };

const MAX_DEPTH = 512;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS: ReadonlyArray<readonly [string, { kind: "boolean"; value: boolean } | { kind: "null" }]> = [
  ["true", { kind: "boolean", value: true }],
  ["false", { kind: "boolean", value: false }],
  ["null", { kind: "null" }],
];

/**
 * Reads one RFC 8259 JSON value starting at `start` (leading whitespace allowed) and stops right after
 * it, like Python's `json.JSONDecoder.raw_decode`: what follows the value is not looked at. Scanning is
 * linear in the value's length and never throws (outputs full of broken markers fail thousands of
 * times); nesting deeper than 512 levels is reported as a syntax error rather than overflowing the stack.
 *
 * @param limit - treat the text as ending here (exclusive); defaults to `text.length`.
 */
export function scanJsonValue(text: string, start: number, limit = text.length): JsonScanResult {
  const scanner = new JsonScanner(text, start, limit);
  const node = scanner.value(0);
  if (node !== undefined) return { ok: true, node, end: scanner.pos };
  return { ok: false, ...scanner.failure! };
}

/** Recursive-descent reader; a method returns `undefined` after recording the first failure. */
class JsonScanner {
  pos: number;
  failure: { atEnd: boolean; offset: number; reason: string } | undefined;

  constructor(
    readonly text: string,
    start: number,
    readonly limit: number,
  ) {
    this.pos = start;
  }

  fail(reason: string): undefined {
    const atEnd = this.pos >= this.limit;
    this.failure = { atEnd, offset: this.pos, reason: atEnd ? "unexpected end of JSON" : reason };
    return undefined;
  }

  /** Fails as cut off: the text ended inside a token. */
  failAtEnd(): undefined {
    this.pos = this.limit;
    return this.fail("unexpected end of JSON");
  }

  skipWhitespace(): void {
    const { text, limit } = this;
    let pos = this.pos;
    while (pos < limit) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) pos++;
      else break;
    }
    this.pos = pos;
  }

  /** Current character, or `undefined` at the limit. */
  peek(): string | undefined {
    return this.pos < this.limit ? this.text[this.pos] : undefined;
  }

  string(): string | undefined {
    const { text, limit } = this;
    this.pos++; // opening quote
    let out = "";
    let chunk = this.pos;
    while (true) {
      if (this.pos >= limit) return this.fail("unterminated string");
      const c = text.charCodeAt(this.pos);
      if (c === 0x22) {
        out += text.slice(chunk, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) return this.fail("control character in string");
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += text.slice(chunk, this.pos);
      if (this.pos + 1 >= limit) return this.failAtEnd();
      const escaped = text[this.pos + 1];
      this.pos += 2;
      switch (escaped) {
        case '"':
        case "\\":
        case "/":
          out += escaped;
          break;
        case "b":
          out += "\b";
          break;
        case "f":
          out += "\f";
          break;
        case "n":
          out += "\n";
          break;
        case "r":
          out += "\r";
          break;
        case "t":
          out += "\t";
          break;
        case "u": {
          for (let i = 0; i < 4; i++) {
            if (this.pos + i >= limit) return this.failAtEnd();
            const h = text.charCodeAt(this.pos + i);
            const isHex = (h >= 48 && h <= 57) || (h >= 65 && h <= 70) || (h >= 97 && h <= 102);
            if (!isHex) {
              this.pos += i;
              return this.fail("invalid \\u escape");
            }
          }
          out += String.fromCharCode(Number.parseInt(text.slice(this.pos, this.pos + 4), 16));
          this.pos += 4;
          break;
        }
        default:
          this.pos -= 2;
          return this.fail("invalid escape");
      }
      chunk = this.pos;
    }
  }

  object(depth: number): JsonNode | undefined {
    const begin = this.pos;
    this.pos++;
    const members: JsonMember[] = [];
    this.skipWhitespace();
    if (this.peek() === "}") {
      this.pos++;
      return { kind: "object", start: begin, end: this.pos, members };
    }
    while (true) {
      this.skipWhitespace();
      if (this.peek() !== '"') return this.fail("expected a string key");
      const key = this.string();
      if (key === undefined) return undefined;
      this.skipWhitespace();
      if (this.peek() !== ":") return this.fail("expected ':'");
      this.pos++;
      const value = this.value(depth + 1);
      if (value === undefined) return undefined;
      members.push({ key, value });
      this.skipWhitespace();
      const next = this.peek();
      if (next === ",") {
        this.pos++;
        continue;
      }
      if (next === "}") {
        this.pos++;
        return { kind: "object", start: begin, end: this.pos, members };
      }
      return this.fail("expected ',' or '}'");
    }
  }

  array(depth: number): JsonNode | undefined {
    const begin = this.pos;
    this.pos++;
    const items: JsonNode[] = [];
    this.skipWhitespace();
    if (this.peek() === "]") {
      this.pos++;
      return { kind: "array", start: begin, end: this.pos, items };
    }
    while (true) {
      const item = this.value(depth + 1);
      if (item === undefined) return undefined;
      items.push(item);
      this.skipWhitespace();
      const next = this.peek();
      if (next === ",") {
        this.pos++;
        continue;
      }
      if (next === "]") {
        this.pos++;
        return { kind: "array", start: begin, end: this.pos, items };
      }
      return this.fail("expected ',' or ']'");
    }
  }

  value(depth: number): JsonNode | undefined {
    this.skipWhitespace();
    if (depth > MAX_DEPTH) return this.fail("nesting too deep");
    const c = this.peek();
    if (c === undefined) return this.fail("unexpected end of JSON");
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    const { text, limit } = this;
    const begin = this.pos;
    if (c === '"') {
      const value = this.string();
      return value === undefined ? undefined : { kind: "string", start: begin, end: this.pos, value };
    }
    for (const [word, node] of LITERALS) {
      if (text.startsWith(word, begin) && begin + word.length <= limit) {
        this.pos += word.length;
        return { ...node, start: begin, end: this.pos };
      }
      // A literal cut off by the end of the text ("tr", "nul").
      if (limit - begin < word.length && word.startsWith(text.slice(begin, limit))) return this.failAtEnd();
    }
    NUMBER.lastIndex = begin;
    const match = NUMBER.exec(text);
    if (match !== null && match[0].length > 0 && begin + match[0].length <= limit) {
      // A number running into the end is still a complete value (raw_decode semantics); what must
      // follow it decides whether the call is complete.
      this.pos += match[0].length;
      return { kind: "number", start: begin, end: this.pos };
    }
    if (c === "-" && begin + 1 >= limit) return this.failAtEnd();
    return this.fail(`unexpected character ${JSON.stringify(c)}`);
  }
}
