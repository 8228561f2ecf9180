import { RewardValueError } from "../errors/reward-value-error";
import type { RewardValue } from "../plan/session-output-like";

/** A reward reduced to what training and metrics use. */
export interface ResolvedReward {
  /** The primary scalar (`rollout/raw_reward`, passrate, normalisation input). */
  primary: number;
  /**
   * Numeric helper fields of a reward object (every finite-number field except `rewardKey`), logged as
   * `rollout/<field>/{mean,median,max,min}`. `{}` for a numeric reward.
   */
  details: Record<string, number>;
}

/** Options of {@link resolveRewardValue}. */
export interface ResolveRewardValueOptions {
  value: RewardValue;
  /** `--reward-key`: the field of a reward object holding the primary value. */
  rewardKey?: string | undefined;
  /** Path of `value` for error messages. @default "reward" */
  path?: string | undefined;
}

/**
 * Reduces a reward to its primary value and helper metrics (see docs/contract.md#reward):
 * - a finite number is the primary value (a configured `rewardKey` is then ignored);
 * - an object needs `rewardKey`, and `value[rewardKey]` must be a finite number; other finite-number
 *   fields become helper metrics (non-numeric fields are ignored);
 * - `null` / `undefined` → `null` (no reward: a reward function or custom advantage must supply credit).
 *
 * @throws RewardValueError for NaN/±Infinity, booleans, strings, arrays, an object without `rewardKey`
 *   configured, or an object whose `rewardKey` field is missing or not a finite number.
 */
export function resolveRewardValue(options: ResolveRewardValueOptions): ResolvedReward | null {
  const { value, rewardKey, path = "reward" } = options;
  if (value === null || value === undefined) return null;
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new RewardValueError({ path, reason: `${value} is not a finite number` });
    return { primary: value, details: {} };
  }
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new RewardValueError({
      path,
      reason: `must be a number, an object or null, got ${Array.isArray(value) ? "array" : typeof value}`,
    });
  }
  if (rewardKey === undefined) {
    throw new RewardValueError({
      path,
      reason: "is an object, so rewardKey (--reward-key) must name its primary field",
    });
  }
  const primary = value[rewardKey];
  if (typeof primary !== "number" || !Number.isFinite(primary)) {
    throw new RewardValueError({
      path: `${path}.${rewardKey}`,
      reason:
        primary === undefined
          ? "is missing (rewardKey names the primary field of the reward object)"
          : `must be a finite number, got ${JSON.stringify(primary) ?? typeof primary}`,
    });
  }
  const details: Record<string, number> = {};
  for (const [key, field] of Object.entries(value)) {
    if (key !== rewardKey && typeof field === "number" && Number.isFinite(field)) details[key] = field;
  }
  return { primary, details };
}
