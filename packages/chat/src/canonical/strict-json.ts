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
  return new StrictJsonParser(text, path).parseDocument();
}

/** Deepest nesting of arrays and objects {@link parseStrictJson} accepts. */
const MAX_DEPTH = 512;

/** The one-character escapes of a JSON string (`\u` is read separately). */
const SIMPLE_ESCAPES: ReadonlyMap<string | undefined, string> = new Map([
  ['"', '"'],
  ["\\", "\\"],
  ["/", "/"],
  ["b", "\b"],
  ["f", "\f"],
  ["n", "\n"],
  ["r", "\r"],
  ["t", "\t"],
]);

/**
 * The recursive-descent reader behind {@link parseStrictJson}: one cursor (`pos`) over `text`; each
 * `parse*` method reads one construct starting at the cursor and leaves the cursor after it. Every
 * failure throws a {@link CanonicalizationError} naming `path` and the cursor's offset.
 */
export class StrictJsonParser {
  /** Offset of the next character to read. */
  pos = 0;

  constructor(
    readonly text: string,
    readonly path: string,
  ) {}

  /** The whole text as one value, with only whitespace around it. */
  parseDocument(): StrictJsonValue {
    const value = this.parseValue(0);
    this.skipWhitespace();
    if (this.pos !== this.text.length) this.fail("unexpected trailing characters");
    return value;
  }

  /** One value after optional whitespace, `depth` levels inside arrays and objects. */
  parseValue(depth: number): StrictJsonValue {
    if (depth > MAX_DEPTH) this.fail("nesting too deep");
    this.skipWhitespace();
    const c = this.text[this.pos];
    if (c === "{") return this.parseObject(depth);
    if (c === "[") return this.parseArray(depth);
    if (c === '"') return this.parseString();
    return this.parseScalar(c);
  }

  /** An object (the cursor is on `{`), with a null prototype so a `"__proto__"` key is an ordinary member. */
  parseObject(depth: number): Record<string, StrictJsonValue> {
    const { text } = this;
    this.pos++;
    const object: Record<string, StrictJsonValue> = Object.create(null);
    this.skipWhitespace();
    if (text[this.pos] === "}") {
      this.pos++;
      return object;
    }
    while (true) {
      this.skipWhitespace();
      if (text[this.pos] !== '"') this.fail("expected a string key");
      const key = this.parseString();
      if (Object.hasOwn(object, key)) this.fail(`duplicate key ${JSON.stringify(key)}`);
      this.skipWhitespace();
      if (text[this.pos] !== ":") this.fail("expected ':'");
      this.pos++;
      object[key] = this.parseValue(depth + 1);
      this.skipWhitespace();
      if (text[this.pos] === ",") {
        this.pos++;
        continue;
      }
      if (text[this.pos] === "}") {
        this.pos++;
        return object;
      }
      this.fail("expected ',' or '}'");
    }
  }

  /** An array (the cursor is on `[`). */
  parseArray(depth: number): StrictJsonValue[] {
    const { text } = this;
    this.pos++;
    const array: StrictJsonValue[] = [];
    this.skipWhitespace();
    if (text[this.pos] === "]") {
      this.pos++;
      return array;
    }
    while (true) {
      array.push(this.parseValue(depth + 1));
      this.skipWhitespace();
      if (text[this.pos] === ",") {
        this.pos++;
        continue;
      }
      if (text[this.pos] === "]") {
        this.pos++;
        return array;
      }
      this.fail("expected ',' or ']'");
    }
  }

  /** A string (the cursor is on its opening `"`); it must not hold a lone surrogate. */
  parseString(): string {
    const { text } = this;
    this.pos++;
    let out = "";
    let chunkStart = this.pos;
    while (true) {
      if (this.pos >= text.length) this.fail("unterminated string");
      const c = text.charCodeAt(this.pos);
      if (c === 0x22) {
        out += text.slice(chunkStart, this.pos);
        this.pos++;
        break;
      }
      if (c < 0x20) this.fail("control character in string");
      if (c === 0x5c) {
        out += text.slice(chunkStart, this.pos) + this.parseEscape();
        chunkStart = this.pos;
        continue;
      }
      this.pos++;
    }
    if (hasLoneSurrogate(out)) this.fail("string contains a lone surrogate");
    return out;
  }

  /** One escape sequence (the cursor is on its backslash): the character it stands for. */
  parseEscape(): string {
    const { text } = this;
    const e = text[this.pos + 1];
    this.pos += 2;
    if (e === "u") {
      const hex = text.slice(this.pos, this.pos + 4);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("invalid \\u escape");
      this.pos += 4;
      return String.fromCharCode(Number.parseInt(hex, 16));
    }
    const escaped = SIMPLE_ESCAPES.get(e);
    if (escaped === undefined) {
      this.pos -= 2;
      this.fail("invalid escape");
    }
    return escaped;
  }

  /** `true`, `false`, `null` or a number at the cursor, whose character is `c`. */
  parseScalar(c: string | undefined): StrictJsonValue {
    const { text } = this;
    if (text.startsWith("true", this.pos)) {
      this.pos += 4;
      return true;
    }
    if (text.startsWith("false", this.pos)) {
      this.pos += 5;
      return false;
    }
    if (text.startsWith("null", this.pos)) {
      this.pos += 4;
      return null;
    }
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(this.pos, this.pos + 400));
    if (match && match[0].length > 0 && match[0] !== "-") {
      const literal = match[0];
      const value = Number(literal);
      if (!Number.isFinite(value)) this.fail(`number ${literal} is not finite`);
      this.pos += literal.length;
      return new JsonNumberLiteral(canonicalNumberLiteral(literal, this.path));
    }
    return this.fail(c === undefined ? "unexpected end of JSON" : `unexpected token ${JSON.stringify(c)}`);
  }

  /** Moves the cursor past JSON whitespace (space, tab, LF, CR). */
  skipWhitespace(): void {
    const { text } = this;
    while (this.pos < text.length) {
      const c = text.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.pos++;
      else break;
    }
  }

  /** @throws CanonicalizationError `<reason> at offset <pos>` at `path`. */
  fail(reason: string): never {
    throw new CanonicalizationError({ path: this.path, reason: `${reason} at offset ${this.pos}` });
  }
}
