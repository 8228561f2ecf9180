const marker = Symbol.for("relax.error.RewardValueError");

/**
 * A reward (from the agent output or a reward function) has no usable primary value: not a finite
 * number, an object without `rewardKey` configured, or an object whose `rewardKey` field is missing or
 * not a finite number. `path` names the value, e.g. `sessions[2].records[0].reward.score`.
 */
export class RewardValueError extends Error {
  readonly [marker] = true;
  override readonly name = "RewardValueError";
  /** Path of the offending value. */
  readonly path: string;
  /** The message without the path prefix. */
  readonly reason: string;

  constructor({ path, reason }: { path: string; reason: string }) {
    super(`${path}: ${reason}`);
    this.path = path;
    this.reason = reason;
  }

  /** True for any `RewardValueError`, including one from another copy of this package. */
  static isInstance(error: unknown): error is RewardValueError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
