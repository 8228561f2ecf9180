/**
 * A JSON value located in a larger text: every node keeps its `[start, end)` character span so callers
 * can hand the exact source slice of `arguments` to {@link canonicalToolArguments} (which keeps big
 * integers digit for digit).
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

class ScanFailure {
  constructor(
    readonly atEnd: boolean,
    readonly offset: number,
    readonly reason: string,
  ) {}
}

/**
 * Reads one RFC 8259 JSON value starting at `start` (leading whitespace allowed) and stops right after
 * it, like Python's `json.JSONDecoder.raw_decode`: what follows the value is not looked at. Scanning is
 * linear in the value's length; nesting deeper than 512 levels is reported as a syntax error rather
 * than overflowing the stack.
 *
 * @param limit - treat the text as ending here (exclusive); defaults to `text.length`.
 */
export function scanJsonValue(text: string, start: number, limit = text.length): JsonScanResult {
  let pos = start;
  const fail = (reason: string): never => {
    throw new ScanFailure(pos >= limit, pos, pos >= limit ? "unexpected end of JSON" : reason);
  };
  const skipWhitespace = () => {
    while (pos < limit) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) pos++;
      else break;
    }
  };
  const readString = (): string => {
    pos++; // opening quote
    let out = "";
    let chunk = pos;
    while (true) {
      if (pos >= limit) fail("unterminated string");
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        out += text.slice(chunk, pos);
        pos++;
        return out;
      }
      if (c < 0x20) fail("control character in string");
      if (c !== 0x5c) {
        pos++;
        continue;
      }
      out += text.slice(chunk, pos);
      if (pos + 1 >= limit) {
        pos = limit;
        fail("unterminated string");
      }
      const escaped = text[pos + 1];
      pos += 2;
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
            if (pos + i >= limit) {
              pos = limit;
              fail("unterminated string");
            }
            const h = text.charCodeAt(pos + i);
            const isHex = (h >= 48 && h <= 57) || (h >= 65 && h <= 70) || (h >= 97 && h <= 102);
            if (!isHex) {
              pos += i;
              fail("invalid \\u escape");
            }
          }
          out += String.fromCharCode(Number.parseInt(text.slice(pos, pos + 4), 16));
          pos += 4;
          break;
        }
        default:
          pos -= 2;
          fail("invalid escape");
      }
      chunk = pos;
    }
  };
  const readValue = (depth: number): JsonNode => {
    skipWhitespace();
    if (depth > MAX_DEPTH) fail("nesting too deep");
    const begin = pos;
    const c = text[pos];
    if (c === "{") {
      pos++;
      const members: JsonMember[] = [];
      skipWhitespace();
      if (text[pos] === "}" && pos < limit) {
        pos++;
        return { kind: "object", start: begin, end: pos, members };
      }
      while (true) {
        skipWhitespace();
        if (pos >= limit || text[pos] !== '"') fail("expected a string key");
        const key = readString();
        skipWhitespace();
        if (pos >= limit || text[pos] !== ":") fail("expected ':'");
        pos++;
        members.push({ key, value: readValue(depth + 1) });
        skipWhitespace();
        if (pos < limit && text[pos] === ",") {
          pos++;
          continue;
        }
        if (pos < limit && text[pos] === "}") {
          pos++;
          return { kind: "object", start: begin, end: pos, members };
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      pos++;
      const items: JsonNode[] = [];
      skipWhitespace();
      if (text[pos] === "]" && pos < limit) {
        pos++;
        return { kind: "array", start: begin, end: pos, items };
      }
      while (true) {
        items.push(readValue(depth + 1));
        skipWhitespace();
        if (pos < limit && text[pos] === ",") {
          pos++;
          continue;
        }
        if (pos < limit && text[pos] === "]") {
          pos++;
          return { kind: "array", start: begin, end: pos, items };
        }
        fail("expected ',' or ']'");
      }
    }
    if (pos >= limit) fail("unexpected end of JSON");
    if (c === '"') {
      const value = readString();
      return { kind: "string", start: begin, end: pos, value };
    }
    for (const [word, node] of LITERALS) {
      if (text.startsWith(word, pos)) {
        if (pos + word.length > limit) {
          pos = limit;
          fail("unexpected end of JSON");
        }
        pos += word.length;
        return { ...node, start: begin, end: pos } as JsonNode;
      }
      // A literal cut off by the end of the text ("tr", "nul").
      if (limit - pos < word.length && word.startsWith(text.slice(pos, limit))) {
        pos = limit;
        fail("unexpected end of JSON");
      }
    }
    NUMBER.lastIndex = pos;
    const match = NUMBER.exec(text);
    if (match !== null && match[0].length > 0 && pos + match[0].length <= limit) {
      pos += match[0].length;
      // A number that runs into the end may still be growing ("12" of "123"): only a cut if at the end.
      return { kind: "number", start: begin, end: pos };
    }
    if (c === "-" && pos + 1 >= limit) {
      pos = limit;
      fail("unexpected end of JSON");
    }
    return fail(`unexpected character ${JSON.stringify(c)}`);
  };
  try {
    const node = readValue(0);
    return { ok: true, node, end: pos };
  } catch (error) {
    if (error instanceof ScanFailure) {
      return { ok: false, atEnd: error.atEnd, offset: error.offset, reason: error.reason };
    }
    throw error;
  }
}

const LITERALS: ReadonlyArray<readonly [string, { kind: "boolean"; value: boolean } | { kind: "null" }]> = [
  ["true", { kind: "boolean", value: true }],
  ["false", { kind: "boolean", value: false }],
  ["null", { kind: "null" }],
];

/** All members of an object node named `key`, in source order (more than one means a duplicate key). */
export function findMembers(node: Extract<JsonNode, { kind: "object" }>, key: string): JsonMember[] {
  return node.members.filter((member) => member.key === key);
}
