/**
 * Plain-words text of a dumped sample's `reward_source` and `advantage_source` (`@relax/export`'s
 * `RewardSource` / `AdvantageSource`, see docs/view.md#the-dumps-forest-section). A kind this viewer does not know (a newer
 * dump) is shown as its JSON.
 */

/** `reward_source` as the viewer reads it: a `kind` and that kind's fields. */
export type DumpedRewardSource = { kind: string } & Record<string, unknown>;

/**
 * Where a reward came from, e.g. `agent output: output.reward (field "score")`,
 * `reward function ./rm.mjs#score`, `none`; an earlier compaction segment adds
 * ` — copied from the last segment 1a2b3c4d`.
 */
export function describeRewardSource(source: DumpedRewardSource): string {
  const text = rewardSourceText(source);
  const from = source.copied_from;
  return typeof from === "string" ? `${text} — copied from the last segment ${from.slice(0, 8)}` : text;
}

function rewardSourceText(source: DumpedRewardSource): string {
  switch (source.kind) {
    case "agent_output":
      return `agent output: ${String(source.path)}${typeof source.key === "string" ? ` (field ${JSON.stringify(source.key)})` : ""}`;
    case "reward_function":
      return `reward function ${String(source.function)}`;
    case "group_reward_function":
      return `group reward function ${String(source.function)}`;
    case "none":
      return "none";
    default:
      return JSON.stringify(source);
  }
}

/**
 * How an advantage was assigned, e.g. `normalised in the Group: grpo ((r − mean) / std)`,
 * `custom advantage function ./credit.mjs#advantage`, `0 (eval)`.
 */
export function describeAdvantageSource(source: DumpedRewardSource): string {
  switch (source.kind) {
    case "normalized": {
      const estimator = String(source.estimator);
      if (estimator !== "grpo") return `normalised in the Group: ${estimator}`;
      return `normalised in the Group: grpo (${source.std_normalization === false ? "r − mean" : "(r − mean) / std"})`;
    }
    case "reward":
      return "the reward (no normalisation)";
    case "custom_advantage":
      return `custom advantage function ${String(source.function)}`;
    case "eval":
      return "0 (eval)";
    case "none":
      return "none (the Group was dropped or filtered before credit)";
    default:
      return JSON.stringify(source);
  }
}
