import { GroupSizeError } from "../errors/group-size-error";
import { type NormalizeGroupRewardsOptions, normalizeGroupRewards } from "./normalize-group-rewards";

/** Options of {@link normalizeRewardsByGroup}. */
export interface NormalizeRewardsByGroupOptions extends Omit<NormalizeGroupRewardsOptions, "rewards"> {
  /** Primary rewards of a whole step, one per row. */
  rewards: readonly number[];
  /** `group_index` of each reward (same length as `rewards`); members need not be adjacent. */
  groupIndices: readonly number[];
  /** `--n-samples-per-prompt`: every Group must have exactly this many members. */
  nSamplesPerPrompt: number;
}

/**
 * Normalises a flat list of rewards Group by Group, keyed by `group_index` rather than by position, and
 * returns advantages in the input order. Unlike a reshape to `(-1, n)`, a Group with the wrong number of
 * members is an error, never silently merged with its neighbour.
 *
 * @throws GroupSizeError when a Group does not have exactly `nSamplesPerPrompt` members.
 * @throws RangeError when the two lists differ in length (or see {@link normalizeGroupRewards}).
 */
export function normalizeRewardsByGroup(options: NormalizeRewardsByGroupOptions): number[] {
  const { rewards, groupIndices, nSamplesPerPrompt, ...estimator } = options;
  if (rewards.length !== groupIndices.length) {
    throw new RangeError(
      `rewards has ${rewards.length} entries but groupIndices has ${groupIndices.length}; they must align`,
    );
  }
  const positions = new Map<number, number[]>();
  for (const [i, groupIndex] of groupIndices.entries()) {
    const list = positions.get(groupIndex);
    if (list) list.push(i);
    else positions.set(groupIndex, [i]);
  }
  const advantages = new Array<number>(rewards.length);
  for (const [groupIndex, members] of positions) {
    if (members.length !== nSamplesPerPrompt) {
      throw new GroupSizeError({ groupIndex, expected: nSamplesPerPrompt, actual: members.length });
    }
    const normalised = normalizeGroupRewards({ ...estimator, rewards: members.map((i) => rewards[i]!) });
    for (const [k, i] of members.entries()) advantages[i] = normalised[k]!;
  }
  return advantages;
}
