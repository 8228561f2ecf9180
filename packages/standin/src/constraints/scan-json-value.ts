/** Where one JSON value ends in a text, or where and why it is not JSON. */
export type JsonScan = { ok: true; end: number } | { ok: false; at: number; reason: string };

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS = ["true", "false", "null"] as const;

/**
 * Scans one JSON value that starts exactly at `start` (no whitespace before it; whitespace between its
 * tokens is allowed, as a grammar-constrained engine allows it) and returns where it ends. A number takes
 * the longest match.
 */
export function scanJsonValue(text: string, start: number): JsonScan {
  try {
    return { ok: true, end: new JsonScanner(text).value(start) };
  } catch (error) {
    if (error instanceof JsonScanError) return { ok: false, at: error.at, reason: error.message };
    throw error;
  }
}

class JsonScanError extends Error {
  constructor(
    readonly at: number,
    message: string,
  ) {
    super(message);
  }
}

class JsonScanner {
  #depth = 0;

  constructor(private readonly text: string) {}

  value(pos: number): number {
    const c = this.text[pos];
    if (c === undefined) throw new JsonScanError(pos, "a JSON value, got the end of the text");
    if (c === "{") return this.#nested(pos, () => this.#object(pos));
    if (c === "[") return this.#nested(pos, () => this.#array(pos));
    if (c === '"') return this.#string(pos);
    for (const literal of LITERALS) if (this.text.startsWith(literal, pos)) return pos + literal.length;
    NUMBER.lastIndex = pos;
    const number = NUMBER.exec(this.text);
    if (number !== null) return pos + number[0].length;
    throw new JsonScanError(pos, `a JSON value, got ${JSON.stringify(c)}`);
  }

  #nested(pos: number, scan: () => number): number {
    if (++this.#depth > 512) throw new JsonScanError(pos, "JSON nested deeper than 512 levels");
    try {
      return scan();
    } finally {
      this.#depth--;
    }
  }

  #object(open: number): number {
    let pos = this.#space(open + 1);
    if (this.text[pos] === "}") return pos + 1;
    while (true) {
      if (this.text[pos] !== '"') throw this.#expected(pos, "a property name string");
      pos = this.#space(this.#string(pos));
      if (this.text[pos] !== ":") throw this.#expected(pos, '":"');
      pos = this.#space(this.value(this.#space(pos + 1)));
      if (this.text[pos] === "}") return pos + 1;
      if (this.text[pos] !== ",") throw this.#expected(pos, '"," or "}"');
      pos = this.#space(pos + 1);
    }
  }

  #array(open: number): number {
    let pos = this.#space(open + 1);
    if (this.text[pos] === "]") return pos + 1;
    while (true) {
      pos = this.#space(this.value(pos));
      if (this.text[pos] === "]") return pos + 1;
      if (this.text[pos] !== ",") throw this.#expected(pos, '"," or "]"');
      pos = this.#space(pos + 1);
    }
  }

  #string(open: number): number {
    let pos = open + 1;
    while (pos < this.text.length) {
      const c = this.text[pos]!;
      if (c === '"') return pos + 1;
      if (c === "\\") {
        const escaped = this.text[pos + 1];
        if (escaped === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(pos + 2, pos + 6)))
            throw new JsonScanError(pos, "a \\uXXXX escape");
          pos += 6;
        } else if (escaped !== undefined && '"\\/bfnrt'.includes(escaped)) pos += 2;
        else throw new JsonScanError(pos, "a valid string escape");
      } else if (c < " ") throw new JsonScanError(pos, "no control character inside a JSON string");
      else pos++;
    }
    throw new JsonScanError(this.text.length, "the end of a JSON string");
  }

  #space(pos: number): number {
    while (pos < this.text.length && WHITESPACE.has(this.text[pos]!)) pos++;
    return pos;
  }

  #expected(pos: number, what: string): JsonScanError {
    const got = this.text[pos];
    return new JsonScanError(
      pos,
      `${what}, got ${got === undefined ? "the end of the text" : JSON.stringify(got)}`,
    );
  }
}
