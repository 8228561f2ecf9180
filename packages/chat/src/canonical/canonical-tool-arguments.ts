import { CanonicalizationError } from "./canonicalization-error";
import { stableStringify } from "./stable-stringify";
import { hasLoneSurrogate, JsonNumberLiteral, parseStrictJson, type StrictJsonValue } from "./strict-json";

function fromPlainValue(value: unknown, path: string): StrictJsonValue {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "string") {
    if (hasLoneSurrogate(value)) {
      throw new CanonicalizationError({ path, reason: "string contains a lone surrogate" });
    }
    return value;
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw new CanonicalizationError({ path, reason: `number ${value} is not finite` });
    }
    return new JsonNumberLiteral(JSON.stringify(value));
  }
  if (Array.isArray(value)) return value.map((item, i) => fromPlainValue(item, `${path}[${i}]`));
  if (typeof value === "object") {
    const out: Record<string, StrictJsonValue> = Object.create(null);
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (hasLoneSurrogate(key)) {
        throw new CanonicalizationError({ path, reason: "object key contains a lone surrogate" });
      }
      if (item !== undefined) out[key] = fromPlainValue(item, `${path}.${key}`);
    }
    return out;
  }
  throw new CanonicalizationError({ path, reason: `a ${typeof value} is not a JSON value` });
}

/**
 * Canonical JSON text of tool-call arguments: the argument object with keys sorted by code point, compact
 * separators, non-ASCII kept, integral floats (|x| ≤ 2^53−1) written as integers, big integer literals
 * kept digit for digit. `'{"c": "d", "a": 1.0}'` and `{a: 1, c: "d"}` both give `{"a":1,"c":"d"}`.
 * See docs/contract.md#chat-completions.
 *
 * @param args - a JSON string (the OpenAI wire form) or an already-parsed object (Anthropic `input`).
 * @param path - field path used in errors, e.g. `messages[2].tool_calls[0].function.arguments`.
 * @throws CanonicalizationError for invalid JSON, duplicate keys, NaN/Infinity, numbers that overflow,
 *   lone surrogates, or a value that is not a JSON object.
 */
export function canonicalToolArguments(args: unknown, path = "arguments"): string {
  let value: StrictJsonValue;
  if (typeof args === "string") {
    value = parseStrictJson(args, path);
  } else if (args !== null && typeof args === "object" && !Array.isArray(args)) {
    value = fromPlainValue(args, path);
  } else {
    throw new CanonicalizationError({
      path,
      reason: `must be a JSON object or a string holding one, got ${args === null ? "null" : Array.isArray(args) ? "an array" : typeof args}`,
    });
  }
  if (
    value === null ||
    typeof value !== "object" ||
    Array.isArray(value) ||
    value instanceof JsonNumberLiteral
  ) {
    const kind =
      value === null
        ? "null"
        : Array.isArray(value)
          ? "an array"
          : value instanceof JsonNumberLiteral
            ? "a number"
            : `a ${typeof value}`;
    throw new CanonicalizationError({ path, reason: `must encode a JSON object, got ${kind}` });
  }
  return stableStringify(value, path);
}
