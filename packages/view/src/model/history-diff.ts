/** Where two message histories first differ. */
export interface HistoryDifference {
  /** Index of the first differing message; `-1` when one history is a prefix of the other (or equal). */
  message: number;
  /** Field path of the first difference, e.g. `messages[3].tool_calls[0].function.arguments`; `null` with -1. */
  field: string | null;
}

/**
 * Compares two histories (arrays of canonical messages) message by message and, inside the first
 * differing message, field by field in key order (the left message's keys first, then keys only the
 * right one has). A message present on one side only is reported as `messages[i]`.
 */
export function diffHistories(
  left: readonly Record<string, unknown>[],
  right: readonly Record<string, unknown>[],
): HistoryDifference {
  const length = Math.max(left.length, right.length);
  for (let i = 0; i < length; i++) {
    const a = left[i];
    const b = right[i];
    if (a === undefined || b === undefined) {
      // One side ends here: a prefix, not a difference of content.
      return { message: -1, field: null };
    }
    const field = firstDifference(a, b, `messages[${i}]`);
    if (field !== null) return { message: i, field };
  }
  return { message: -1, field: null };
}

function firstDifference(a: unknown, b: unknown, path: string): string | null {
  if (Object.is(a, b)) return null;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return path;
  if (Array.isArray(a) !== Array.isArray(b)) return path;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const found = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = [...Object.keys(left), ...Object.keys(right).filter((key) => !(key in left))];
  for (const key of keys) {
    const found = firstDifference(left[key], right[key], `${path}.${key}`);
    if (found !== null) return found;
  }
  return null;
}
