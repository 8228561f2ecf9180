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
 * @throws CanonicalizationError for non-finite numbers, bigint, functions and symbols.
 */
export function stableStringify(value: unknown, path = "value"): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) {
        throw new CanonicalizationError({ path, reason: `number ${value} is not finite` });
      }
      return JSON.stringify(value);
    case "object": {
      if (value instanceof JsonNumberLiteral) return value.literal;
      if (Array.isArray(value)) {
        return `[${value.map((item, i) => stableStringify(item ?? null, `${path}[${i}]`)).join(",")}]`;
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort(compareCodePoints);
      const members = keys.map(
        (key) => `${JSON.stringify(key)}:${stableStringify(record[key], `${path}.${key}`)}`,
      );
      return `{${members.join(",")}}`;
    }
    default:
      throw new CanonicalizationError({ path, reason: `a ${typeof value} is not a JSON value` });
  }
}
