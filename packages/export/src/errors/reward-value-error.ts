import { FieldError, hasMarker } from "@relax/chat";

const name = "RewardValueError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A reward (from the agent output or a reward function) has no usable primary value: not a finite
 * number, an object without `rewardKey` configured, or an object whose `rewardKey` field is missing or
 * not a finite number. `path` names the value, e.g. `sessions[2].records[0].reward.score`.
 */
export class RewardValueError extends FieldError {
  readonly [symbol] = true;

  constructor({ path, reason, cause }: { path: string; reason: string; cause?: unknown }) {
    super({ name, path, reason, cause });
  }

  /** True for any `RewardValueError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is RewardValueError {
    return hasMarker(error, marker);
  }
}
