import { CanonicalizationError } from "./canonicalization-error";
import { JsonNumberLiteral } from "./strict-json";

/**
 * Orders strings by Unicode code point, as Python's `sorted()` does (JS `<` compares UTF-16 code units,
 * which orders astral characters before U+E000–U+FFFF).
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Serialises a JSON value with object keys sorted by code point, compact separators and non-ASCII kept:
 * the byte form of Python's `json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`
 * for the values both can represent. `undefined` object members are omitted (as `JSON.stringify` does);
 * {@link JsonNumberLiteral}s are written verbatim. Used for state hashes and canonical tool arguments.
 *
 * @param path - names the value in error messages (built only when an error is thrown).
 * @throws CanonicalizationError for non-finite numbers, bigint, functions and symbols.
 */
export function stableStringify(value: unknown, path = "value"): string {
  const trail: Array<string | number> = [];
  const fail = (reason: string): never => {
    const at = trail.reduce<string>(
      (out, key) => (typeof key === "number" ? `${out}[${key}]` : `${out}.${key}`),
      path,
    );
    throw new CanonicalizationError({ path: at, reason });
  };
  const write = (item: unknown): string => {
    if (item === null) return "null";
    switch (typeof item) {
      case "string":
        return JSON.stringify(item);
      case "boolean":
        return item ? "true" : "false";
      case "number":
        return Number.isFinite(item) ? JSON.stringify(item) : fail(`number ${item} is not finite`);
      case "object": {
        if (item instanceof JsonNumberLiteral) return item.literal;
        if (Array.isArray(item)) {
          let out = "[";
          for (let i = 0; i < item.length; i++) {
            trail.push(i);
            out += (i > 0 ? "," : "") + write(item[i] ?? null);
            trail.pop();
          }
          return `${out}]`;
        }
        const record = item as Record<string, unknown>;
        const keys = Object.keys(record)
          .filter((key) => record[key] !== undefined)
          .sort(compareCodePoints);
        let out = "{";
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i]!;
          trail.push(key);
          out += `${i > 0 ? "," : ""}${JSON.stringify(key)}:${write(record[key])}`;
          trail.pop();
        }
        return `${out}}`;
      }
      default:
        return fail(`a ${typeof item} is not a JSON value`);
    }
  };
  return write(value);
}
