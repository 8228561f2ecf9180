import type { HistoryEdit } from "./history-edit";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A regex matching any redaction marker (the given ones, longest first, plus runs of 3+ `*`). */
export function redactionPattern(markers: readonly string[]): RegExp {
  const sorted = [...markers].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return new RegExp([...sorted, "\\*{3,}"].join("|"), "g");
}

/**
 * Whether `original` can be turned into `redacted` by replacing non-empty spans with markers: the literal
 * pieces of `redacted` between markers must occur in `original` in order, each marker covering at least
 * one character. Greedy leftmost search is exact for this pattern class and runs in linear time.
 */
export function matchesRedaction(original: string, redacted: string, pattern: RegExp): boolean {
  const pieces = redacted.split(pattern);
  if (pieces.length < 2) return false;
  const first = pieces[0] as string;
  const last = pieces[pieces.length - 1] as string;
  if (!original.startsWith(first)) return false;
  let position = first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i] as string;
    const found = original.indexOf(piece, position + 1);
    if (found < 0) return false;
    position = found + piece.length;
  }
  return original.length - last.length >= position + 1 && original.endsWith(last);
}

const normalizeWhitespace = (text: string): string => text.replace(/\s+/g, " ").trim();

/**
 * Compares a committed text with the request's copy. Returns `[]` when equal, the benign edits
 * (`whitespace_changed`, `value_redacted`) that explain the difference, or `null` when none does.
 */
export function compareText(
  committed: string,
  echoed: string,
  path: string,
  pattern: RegExp,
): HistoryEdit[] | null {
  if (committed === echoed) return [];
  const a = normalizeWhitespace(committed);
  const b = normalizeWhitespace(echoed);
  if (a === b) return [{ kind: "whitespace_changed", path }];
  if (matchesRedaction(committed, echoed, pattern)) return [{ kind: "value_redacted", path }];
  if (matchesRedaction(a, b, pattern)) {
    return [
      { kind: "value_redacted", path },
      { kind: "whitespace_changed", path },
    ];
  }
  return null;
}
