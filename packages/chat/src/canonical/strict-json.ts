import { CanonicalizationError } from "./canonicalization-error";

/** A JSON number kept as its canonical literal, so integers beyond 2^53 keep every digit. */
export class JsonNumberLiteral {
  constructor(readonly literal: string) {}
}

/** The value tree produced by {@link parseStrictJson}. */
export type StrictJsonValue =
  | null
  | boolean
  | string
  | JsonNumberLiteral
  | StrictJsonValue[]
  | { [key: string]: StrictJsonValue };

const MAX_SAFE = 2 ** 53 - 1;

/**
 * Canonical literal of a JSON number: integer literals keep their digits (`-0` becomes `0`); other
 * numbers are parsed as IEEE doubles, integral ones with |x| ≤ 2^53−1 become integers (as Python's
 * Relax does to match JS `JSON.stringify`), the rest use the shortest round-trip form.
 *
 * @throws CanonicalizationError for non-finite values such as `1e999`.
 */
export function canonicalNumberLiteral(text: string, path: string): string {
  if (/^-?(0|[1-9]\d*)$/.test(text)) {
    if (text === "-0") return "0";
    const value = Number(text);
    return Math.abs(value) <= MAX_SAFE ? String(value) : text;
  }
  const value = Number(text);
  if (!Number.isFinite(value)) {
    throw new CanonicalizationError({ path, reason: `number ${text} is not finite` });
  }
  if (Number.isInteger(value) && Math.abs(value) <= MAX_SAFE) return String(value === 0 ? 0 : value);
  return JSON.stringify(value);
}

/** True when `text` holds an unpaired UTF-16 surrogate. */
export function hasLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return true;
    }
    if (code >= 0xdc00 && code <= 0xdfff) return true;
  }
  return false;
}

/**
 * Parses JSON text strictly (RFC 8259): rejects duplicate object keys, `NaN`/`Infinity` and other
 * non-JSON tokens, non-finite numbers (`1e999`) and strings holding lone surrogates — the rules for
 * tool-call arguments (see docs/contract.md#chat-completions). Numbers are kept as {@link JsonNumberLiteral}.
 *
 * @param path - field path used in error messages.
 * @throws CanonicalizationError naming `path` and the character offset.
 */
export function parseStrictJson(text: string, path: string): StrictJsonValue {
  let pos = 0;
  const fail = (reason: string): never => {
    throw new CanonicalizationError({ path, reason: `${reason} at offset ${pos}` });
  };
  const skipWhitespace = () => {
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) pos++;
      else break;
    }
  };
  const parseString = (): string => {
    // Caller guarantees text[pos] === '"'.
    pos++;
    let out = "";
    let chunkStart = pos;
    while (true) {
      if (pos >= text.length) fail("unterminated string");
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        out += text.slice(chunkStart, pos);
        pos++;
        break;
      }
      if (c < 0x20) fail("control character in string");
      if (c === 0x5c) {
        out += text.slice(chunkStart, pos);
        const e = text[pos + 1];
        pos += 2;
        switch (e) {
          case '"':
            out += '"';
            break;
          case "\\":
            out += "\\";
            break;
          case "/":
            out += "/";
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
            const hex = text.slice(pos, pos + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("invalid \\u escape");
            out += String.fromCharCode(Number.parseInt(hex, 16));
            pos += 4;
            break;
          }
          default:
            pos -= 2;
            fail("invalid escape");
        }
        chunkStart = pos;
        continue;
      }
      pos++;
    }
    if (hasLoneSurrogate(out)) fail("string contains a lone surrogate");
    return out;
  };
  const parseValue = (depth: number): StrictJsonValue => {
    if (depth > 512) fail("nesting too deep");
    skipWhitespace();
    const c = text[pos];
    if (c === "{") {
      pos++;
      // A null prototype keeps a "__proto__" key an ordinary member.
      const object: Record<string, StrictJsonValue> = Object.create(null);
      skipWhitespace();
      if (text[pos] === "}") {
        pos++;
        return object;
      }
      while (true) {
        skipWhitespace();
        if (text[pos] !== '"') fail("expected a string key");
        const key = parseString();
        if (Object.hasOwn(object, key)) fail(`duplicate key ${JSON.stringify(key)}`);
        skipWhitespace();
        if (text[pos] !== ":") fail("expected ':'");
        pos++;
        object[key] = parseValue(depth + 1);
        skipWhitespace();
        if (text[pos] === ",") {
          pos++;
          continue;
        }
        if (text[pos] === "}") {
          pos++;
          return object;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      pos++;
      const array: StrictJsonValue[] = [];
      skipWhitespace();
      if (text[pos] === "]") {
        pos++;
        return array;
      }
      while (true) {
        array.push(parseValue(depth + 1));
        skipWhitespace();
        if (text[pos] === ",") {
          pos++;
          continue;
        }
        if (text[pos] === "]") {
          pos++;
          return array;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return parseString();
    if (text.startsWith("true", pos)) {
      pos += 4;
      return true;
    }
    if (text.startsWith("false", pos)) {
      pos += 5;
      return false;
    }
    if (text.startsWith("null", pos)) {
      pos += 4;
      return null;
    }
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(pos, pos + 400));
    if (match && match[0].length > 0 && match[0] !== "-") {
      const literal = match[0];
      const value = Number(literal);
      if (!Number.isFinite(value)) fail(`number ${literal} is not finite`);
      pos += literal.length;
      return new JsonNumberLiteral(canonicalNumberLiteral(literal, path));
    }
    return fail(c === undefined ? "unexpected end of JSON" : `unexpected token ${JSON.stringify(c)}`);
  };
  const value = parseValue(0);
  skipWhitespace();
  if (pos !== text.length) fail("unexpected trailing characters");
  return value;
}
