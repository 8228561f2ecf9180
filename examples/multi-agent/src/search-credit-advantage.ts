/** One session's slot: context name → that context's export metadata (docs/contract.md#custom-advantage). */
export type ContextMetadataSlot = Record<string, Record<string, unknown>>;
/** One session's slot of the result: context name → base credit. */
export type ContextCreditSlot = Record<string, number>;

/** Share of the main context's advantage that the searchers of a session split between them. */
export const SEARCHER_CREDIT_SHARE = 0.5;

/**
 * Custom advantage for the main + searchers export (see docs/contract.md#custom-advantage): the `main`
 * score (`metadata.shaped`, else `metadata.outcome`) is z-scored across the sampled Group (population
 * standard deviation); each of a
 * session's `n` searchers gets `0.5 × main_advantage / n`. Custom advantage skips GRPO normalisation, so
 * the centring happens here.
 *
 * @param metadataBySlot In sampled Group order, one `{contextName: metadata}` per session.
 * @returns One `{contextName: credit}` per session in the same order, or `null` — filter the whole Group —
 *   when every main score is equal (no learning signal).
 * @throws Error naming the slot when a session has no `main` context or its score is not a number.
 */
export function searchCreditAdvantage(
  metadataBySlot: readonly ContextMetadataSlot[],
): ContextCreditSlot[] | null {
  const scores = metadataBySlot.map((slot, i) => {
    const main = slot.main;
    if (main === undefined)
      throw new Error(
        `metadata_by_slot[${i}]: no "main" context (exported: ${Object.keys(slot).join(", ")})`,
      );
    const score = main.shaped ?? main.outcome;
    if (typeof score !== "number" || !Number.isFinite(score)) {
      throw new Error(
        `metadata_by_slot[${i}].main.outcome: must be a finite number, got ${JSON.stringify(score)}`,
      );
    }
    return score;
  });
  if (scores.length === 0) return null;
  const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
  const std = Math.sqrt(scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / scores.length);
  if (std === 0) return null;
  return metadataBySlot.map((slot, i) => {
    const mainAdvantage = (scores[i]! - mean) / std;
    const searchers = Object.keys(slot).filter((name) => name !== "main");
    const credit: ContextCreditSlot = { main: mainAdvantage };
    for (const name of searchers) credit[name] = (SEARCHER_CREDIT_SHARE * mainAdvantage) / searchers.length;
    return credit;
  });
}
