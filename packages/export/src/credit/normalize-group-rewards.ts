/**
 * The standard credit estimators for single-context Groups.
 * - `grpo`: mean-centre within the Group, then (with `grpoStdNormalization`) divide by `std + epsilon`;
 * - `rloo`: leave-one-out baseline, `r_i - (Σr - r_i) / (n - 1)`;
 * - `reinforce_plus_plus_baseline`: mean-centre only (REINFORCE++'s batch-level whitening is the
 *   trainer's `--normalize-advantages` step, not part of export).
 * @see docs/contract.md#advantage
 */
export type AdvantageEstimator = "grpo" | "rloo" | "reinforce_plus_plus_baseline";

/**
 * Which standard deviation GRPO divides by. `unbiased` (Bessel's correction, `n - 1`) is the documented
 * one (see docs/contract.md#advantage) and what `torch.Tensor.std()` computes by default; `population`
 * (`n`) is `torch.std(unbiased=False)` / `numpy.std` and what some GRPO write-ups use.
 */
export type StdEstimator = "unbiased" | "population";

/** Options of {@link normalizeGroupRewards}. */
export interface NormalizeGroupRewardsOptions {
  /** Primary rewards of one Group, in sampled order. */
  rewards: readonly number[];
  /** @default "grpo" */
  estimator?: AdvantageEstimator;
  /** Divide GRPO's centred rewards by `std + epsilon` (`--disable-grpo-std-normalization` turns it off). @default true */
  grpoStdNormalization?: boolean;
  /** @default "unbiased" */
  stdEstimator?: StdEstimator;
  /** Added to the std before dividing. @default 1e-6 */
  epsilon?: number;
}

/**
 * Turns one Group's rewards into per-sample advantages (scalar base credit). Computed in float64 (slime
 * uses float32 tensors, so its values differ in the 7th significant digit).
 *
 * Edge cases, all without NaN: equal rewards give all-zero advantages (the std is 0, and `0 / epsilon` is
 * 0); a one-member Group gives `[0]` for `grpo` and `reinforce_plus_plus_baseline` (the unbiased std of
 * one value is taken as 0, where torch would return NaN); `rloo` needs at least two members.
 *
 * @throws RangeError for an empty Group, a non-finite reward, or `rloo` with fewer than 2 rewards.
 */
export function normalizeGroupRewards(options: NormalizeGroupRewardsOptions): number[] {
  const {
    rewards,
    estimator = "grpo",
    grpoStdNormalization = true,
    stdEstimator = "unbiased",
    epsilon = 1e-6,
  } = options;
  const n = rewards.length;
  if (n === 0) throw new RangeError("cannot normalise an empty Group");
  for (const [i, reward] of rewards.entries()) {
    if (!Number.isFinite(reward)) throw new RangeError(`rewards[${i}] is not a finite number: ${reward}`);
  }
  if (estimator === "rloo" && n < 2) {
    throw new RangeError("rloo needs at least 2 samples per Group (leave-one-out baseline)");
  }
  // Subtracting the mean (or leave-one-out mean) of identical values is exactly 0 in IEEE arithmetic
  // only when the sum is exact (0.1 × 3 is not), so identical rewards are special-cased to give zero credit.
  if (rewards.every((reward) => reward === rewards[0])) return rewards.map(() => 0);
  const sum = rewards.reduce((total, reward) => total + reward, 0);
  if (estimator === "rloo") return rewards.map((reward) => reward - (sum - reward) / (n - 1));
  const mean = sum / n;
  const centred = rewards.map((reward) => reward - mean);
  if (estimator === "reinforce_plus_plus_baseline" || !grpoStdNormalization) return centred;
  const std = groupStd({ centred, stdEstimator });
  return centred.map((value) => value / (std + epsilon));
}

/** Standard deviation of already-centred values; 0 for a single value. */
export function groupStd({
  centred,
  stdEstimator,
}: {
  centred: readonly number[];
  stdEstimator: StdEstimator;
}): number {
  const n = centred.length;
  const divisor = stdEstimator === "unbiased" ? n - 1 : n;
  if (divisor <= 0) return 0;
  const squares = centred.reduce((total, value) => total + value * value, 0);
  return Math.sqrt(squares / divisor);
}
