/**
 * `indexOf` over one text with a per-needle memo, so that a parser that keeps asking "where is the next
 * `</tool_call>` after position p" for increasing `p` scans the text once instead of once per question.
 * This keeps every parser linear even on 100k-character outputs full of unmatched markers.
 */
export class MarkerFinder {
  private readonly memo = new Map<string, { from: number; found: number }>();

  constructor(readonly text: string) {}

  /** Index of the first `needle` at or after `from`, or -1. */
  next(needle: string, from: number): number {
    const cached = this.memo.get(needle);
    if (cached !== undefined && cached.from <= from && (cached.found === -1 || cached.found >= from)) {
      return cached.found;
    }
    const found = this.text.indexOf(needle, from);
    this.memo.set(needle, { from, found });
    return found;
  }

  /** The earliest of several needles at or after `from`: `{ index, needle }`, or `undefined`. */
  nextOf(needles: readonly string[], from: number): { index: number; needle: string } | undefined {
    let best: { index: number; needle: string } | undefined;
    for (const needle of needles) {
      const index = this.next(needle, from);
      if (index !== -1 && (best === undefined || index < best.index)) best = { index, needle };
    }
    return best;
  }
}
