import { JsonNumberLiteral } from "./strict-json";

/** Nesting beyond which {@link sameJson} gives up (answers `false`) instead of recursing further. */
const MAX_DEPTH = 64;

/**
 * Whether `candidate` is the same JSON value as `known`, a value `stableStringify` already serialised:
 * `true` only when `stableStringify(candidate)` would succeed and equal `stableStringify(known)`. Strict
 * and allocation-free (no key sorting, no string building), so a cache of canonical forms can be checked
 * against a new request in a fraction of a serialisation. `false` may also mean "not decided" (values
 * deeper than 64 levels, `undefined` array items, objects that are not plain): the caller then
 * serialises, as without a cache.
 */
export function sameJson(known: unknown, candidate: unknown, depth = 0): boolean {
  if (known === candidate) return true;
  if (depth > MAX_DEPTH) return false;
  if (typeof known !== "object" || typeof candidate !== "object" || known === null || candidate === null) {
    return false;
  }
  if (known instanceof JsonNumberLiteral || candidate instanceof JsonNumberLiteral) {
    return (
      known instanceof JsonNumberLiteral &&
      candidate instanceof JsonNumberLiteral &&
      known.literal === candidate.literal
    );
  }
  if (Array.isArray(known)) {
    if (!Array.isArray(candidate) || known.length !== candidate.length) return false;
    for (let i = 0; i < known.length; i++) {
      const a = known[i];
      const b = candidate[i];
      if (a === undefined || b === undefined) return false;
      if (!sameJson(a, b, depth + 1)) return false;
    }
    return true;
  }
  if (Array.isArray(candidate) || !isPlain(known) || !isPlain(candidate)) return false;
  const a = known as Record<string, unknown>;
  const b = candidate as Record<string, unknown>;
  let count = 0;
  for (const key in a) {
    if (!Object.hasOwn(a, key) || a[key] === undefined) continue;
    count++;
    if (!Object.hasOwn(b, key) || !sameJson(a[key], b[key], depth + 1)) return false;
  }
  for (const key in b) {
    if (Object.hasOwn(b, key) && b[key] !== undefined) count--;
  }
  return count === 0;
}

function isPlain(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
