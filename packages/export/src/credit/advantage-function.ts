import { AdvantageResultError } from "../errors/advantage-result-error";

/**
 * One session's slot in the custom advantage input: context key → that context's export metadata.
 * The key is the record name, or `"null"` for an implicit export ({@link IMPLICIT_CONTEXT_KEY}).
 */
export type AdvantageInputSlot = Record<string, Record<string, unknown>>;

/** One session's slot in the custom advantage output: context key → base credit (finite number). */
export type AdvantageOutputSlot = Record<string, number>;

/**
 * A custom advantage function (`--agentic-custom-advantage-path module#export`). Receives, in sampled
 * Group order, one `{contextKey: metadata}` mapping per session, and returns a list of the same length
 * with one `{contextKey: number}` mapping per session, or `null` to filter the whole Group. May be async.
 * The numbers are base credit per context; standard normalisation is skipped, so all centring and
 * scaling happens inside the function. Not called in eval.
 * @see docs/contract.md#custom-advantage
 */
export type AdvantageFunction = (
  metadataBySlot: AdvantageInputSlot[],
) => readonly AdvantageOutputSlot[] | null | Promise<readonly AdvantageOutputSlot[] | null>;

/**
 * Checks a custom advantage return value against its input and returns it as plain numbers per slot.
 * `null` (or `undefined`, Python's implicit `None`) means "filter the Group" and is returned as `null`.
 *
 * @throws AdvantageResultError when the value is not a list, has the wrong length, a slot is not an
 *   object, a context key is missing or unknown, or a value is not a finite number (booleans and numeric
 *   strings are rejected). Per-turn lists (which the Python Relax accepts) are not supported (see
 *   docs/contract.md#deviations).
 */
export function validateAdvantageResult({
  input,
  result,
}: {
  input: readonly AdvantageInputSlot[];
  result: unknown;
}): AdvantageOutputSlot[] | null {
  if (result === null || result === undefined) return null;
  if (!Array.isArray(result)) {
    throw new AdvantageResultError({
      path: "result",
      reason: `must be a list with one mapping per session, or null to filter the Group; got ${describe(result)}`,
    });
  }
  if (result.length !== input.length) {
    throw new AdvantageResultError({
      path: "result",
      reason: `has ${result.length} entries, expected ${input.length} (one per session, in sampled Group order)`,
    });
  }
  return result.map((slot: unknown, i) => {
    const path = `result[${i}]`;
    if (typeof slot !== "object" || slot === null || Array.isArray(slot)) {
      throw new AdvantageResultError({
        path,
        reason: `must be a {contextName: number} mapping, got ${describe(slot)}`,
      });
    }
    const expected = Object.keys(input[i]!);
    const record = slot as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (!expected.includes(key)) {
        throw new AdvantageResultError({
          path: `${path}.${key}`,
          reason: `is not an exported context of session ${i} (exported: ${expected.map((k) => JSON.stringify(k)).join(", ")})`,
        });
      }
    }
    const out: AdvantageOutputSlot = {};
    for (const key of expected) {
      const value = record[key];
      if (value === undefined) {
        throw new AdvantageResultError({
          path: `${path}.${key}`,
          reason: "is missing; every exported context needs a value (0 keeps it with zero credit)",
        });
      }
      if (typeof value !== "number" || !Number.isFinite(value)) {
        throw new AdvantageResultError({
          path: `${path}.${key}`,
          reason: `must be a finite number, got ${describe(value)}`,
        });
      }
      out[key] = value;
    }
    return out;
  });
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return `string ${JSON.stringify(value)}`;
  return typeof value;
}
