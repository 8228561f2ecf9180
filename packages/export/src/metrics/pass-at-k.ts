/**
 * Unbiased pass@k for one problem with `n` samples of which `c` passed: `1 - C(n-c, k) / C(n, k)`,
 * computed as a product to avoid large binomials (Chen et al. 2021, as slime `_estimate_pass_at_k`).
 * @throws RangeError unless `0 <= c <= n` and `1 <= k <= n`.
 */
export function estimatePassAtK({ n, c, k }: { n: number; c: number; k: number }): number {
  if (!(c >= 0 && c <= n && k >= 1 && k <= n))
    throw new RangeError(`invalid pass@k arguments n=${n} c=${c} k=${k}`);
  if (n - c < k) return 1;
  let product = 1;
  for (let i = n - c + 1; i <= n; i++) product *= 1 - k / i;
  return 1 - product;
}

/**
 * `pass@k` for k = 1, 2, 4, … up to the largest Group, averaged over the Groups that have at least k
 * samples (slime's grouped `compute_pass_rate`). `groups[i]` lists the successes (true/false) of Group i.
 */
export function passRates(groups: readonly (readonly boolean[])[]): Record<string, number> {
  const sized = groups.filter((group) => group.length > 0);
  if (sized.length === 0) return {};
  const largest = Math.max(...sized.map((group) => group.length));
  const result: Record<string, number> = {};
  for (let k = 1; k <= largest; k *= 2) {
    const eligible = sized.filter((group) => group.length >= k);
    const estimates = eligible.map((group) =>
      estimatePassAtK({ n: group.length, c: group.filter(Boolean).length, k }),
    );
    result[`pass@${k}`] = estimates.reduce((total, value) => total + value, 0) / estimates.length;
  }
  return result;
}
