import type { ExportFunctions } from "../config/resolve-export-functions";
import { RewardValueError } from "../errors/reward-value-error";
import type { SessionExportPlan } from "../plan/plan-session-export";
import type { RewardValue } from "../plan/session-output-like";
import { type ResolvedReward, resolveRewardValue } from "../reward/resolve-reward-value";
import type { GroupRewardFunction, RewardFunction, RewardFunctionInput } from "../reward/reward-function";
import { isLastSegment, lastSegmentOf } from "./group-contexts";
import { type GroupDrop, messageOf } from "./group-drop";
import type { ExportedContext, SessionExportInput } from "./group-export-outcome";

/** Options of {@link resolveGroupRewards}. */
export interface ResolveGroupRewardsOptions {
  /** The Group's contexts ({@link collectContexts}); their `reward` and `rewardDetails` are set in place. */
  contexts: ExportedContext[];
  /** The sessions' plans, every one ok, in sampled order. */
  plans: readonly SessionExportPlan[];
  /** The Group's sessions (for each context's `datasetSample`). */
  sessions: readonly SessionExportInput[];
  groupIndex: number;
  /** The loaded user functions; with `advantage` set, no per-sample reward function runs and a reward may be missing. */
  functions: ExportFunctions;
  /** The primary field of a reward object (`rewardKey`, or `evalRewardKey` in eval). */
  rewardKey: string | undefined;
  /** Token decoder, for the reward functions' `promptText` / `responseText`. */
  decode?: ((ids: number[]) => string) | undefined;
}

/**
 * Resolves the reward of every context of a Group, in place (see docs/contract.md#reward):
 * 1. the exported value (an unusable one drops the Group, `invalid_reward`);
 * 2. a group reward function replaces them all, or else (without a custom advantage function) a
 *    per-sample reward function fills the missing ones of last segments (a throw or an unusable value
 *    drops the Group, `reward_function_error`);
 * 3. earlier compaction segments copy their session's last segment;
 * 4. without a custom advantage function, a context still without reward drops the Group (`missing_reward`).
 *
 * @returns the drop, or `undefined` when every reward is resolved.
 * @throws whatever a reward resolution throws that is not a {@link RewardValueError}.
 */
export async function resolveGroupRewards(
  options: ResolveGroupRewardsOptions,
): Promise<GroupDrop | undefined> {
  const { contexts, plans, functions, rewardKey } = options;
  const hasCustomAdvantage = functions.advantage !== undefined;
  const inputOf = (context: ExportedContext) => rewardFunctionInput(context, options);
  const drop =
    applyExportedRewards({ contexts, plans, rewardKey }) ??
    (functions.groupReward
      ? await applyGroupRewardFunction({ contexts, groupReward: functions.groupReward, rewardKey, inputOf })
      : functions.reward && !hasCustomAdvantage
        ? await applyRewardFunction({ contexts, reward: functions.reward, rewardKey, inputOf })
        : undefined);
  if (drop) return drop;
  copySegmentRewards(contexts);
  if (hasCustomAdvantage) return undefined;
  const missing = contexts.find((context) => context.reward === null);
  if (!missing) return undefined;
  return {
    reason: "missing_reward",
    message:
      `session ${missing.sessionId} context ${JSON.stringify(missing.name)} has no reward, and no reward ` +
      "function supplied one",
  };
}

/**
 * What a reward function sees for `context`: copies of its metadata and exported reward, the session's
 * dataset sample when there is one, and the decoded prompt and response when `decode` is given.
 */
export function rewardFunctionInput(
  context: ExportedContext,
  { groupIndex, sessions, decode }: Pick<ResolveGroupRewardsOptions, "groupIndex" | "sessions" | "decode">,
): RewardFunctionInput {
  const input: RewardFunctionInput = {
    sessionId: context.sessionId,
    groupIndex,
    slot: context.slot,
    contextName: context.name,
    metadata: structuredClone(context.metadata),
    exportedReward: structuredClone(context.exportedReward),
    sample: context.sample,
  };
  const datasetSample = sessions[context.slot]?.datasetSample;
  if (datasetSample !== undefined) input.datasetSample = datasetSample;
  if (decode) {
    const { tokens, promptLength } = context.sample;
    input.promptText = decode(tokens.slice(0, promptLength));
    input.responseText = decode(tokens.slice(promptLength));
  }
  return input;
}

/** Step 1 of {@link resolveGroupRewards}: each context's exported reward, its path named as the plan gives it. */
function applyExportedRewards({
  contexts,
  plans,
  rewardKey,
}: {
  contexts: ExportedContext[];
  plans: readonly SessionExportPlan[];
  rewardKey: string | undefined;
}): GroupDrop | undefined {
  const plannedPaths = plans.flatMap((plan, slot) =>
    plan.ok ? plan.contexts.map((context) => `sessions[${slot}].${context.rewardPath}`) : [],
  );
  for (const [i, context] of contexts.entries()) {
    const drop = setResolvedReward(
      context,
      { value: context.exportedReward, rewardKey, path: plannedPaths[i] },
      "invalid_reward",
    );
    if (drop) return drop;
  }
  return undefined;
}

/** Step 2 with a group reward function: one call with every context; one reward per context replaces all. */
async function applyGroupRewardFunction({
  contexts,
  groupReward,
  rewardKey,
  inputOf,
}: {
  contexts: ExportedContext[];
  groupReward: GroupRewardFunction;
  rewardKey: string | undefined;
  inputOf: (context: ExportedContext) => RewardFunctionInput;
}): Promise<GroupDrop | undefined> {
  let values: readonly RewardValue[];
  try {
    values = await groupReward(contexts.map(inputOf));
  } catch (error) {
    return {
      reason: "reward_function_error",
      message: `group reward function threw: ${messageOf(error)}`,
      cause: error,
    };
  }
  if (!Array.isArray(values) || values.length !== contexts.length) {
    return {
      reason: "reward_function_error",
      message:
        `group reward function must return a list of ${contexts.length} rewards (one per context), got ` +
        (Array.isArray(values) ? `${values.length}` : typeof values),
    };
  }
  for (const [i, context] of contexts.entries()) {
    const drop = setResolvedReward(
      context,
      { value: values[i], rewardKey, path: `groupReward[${i}]` },
      "reward_function_error",
    );
    if (drop) return drop;
  }
  return undefined;
}

/** Step 2 with a per-sample reward function: called concurrently for each last segment still without reward. */
async function applyRewardFunction({
  contexts,
  reward,
  rewardKey,
  inputOf,
}: {
  contexts: ExportedContext[];
  reward: RewardFunction;
  rewardKey: string | undefined;
  inputOf: (context: ExportedContext) => RewardFunctionInput;
}): Promise<GroupDrop | undefined> {
  const pending = contexts.filter((context) => context.reward === null && isLastSegment(context));
  let values: RewardValue[];
  try {
    values = await Promise.all(pending.map(async (context) => reward(inputOf(context))));
  } catch (error) {
    return {
      reason: "reward_function_error",
      message: `reward function threw: ${messageOf(error)}`,
      cause: error,
    };
  }
  for (const [i, context] of pending.entries()) {
    const path = `reward(sessions[${context.slot}]${context.name === null ? "" : `.${context.name}`})`;
    const drop = setResolvedReward(context, { value: values[i], rewardKey, path }, "reward_function_error");
    if (drop) return drop;
  }
  return undefined;
}

/**
 * Sets `context`'s reward from `value` resolved with {@link resolveRewardValue}; a {@link RewardValueError}
 * becomes a drop with `reason`.
 */
function setResolvedReward(
  context: ExportedContext,
  value: { value: RewardValue; rewardKey: string | undefined; path: string | undefined },
  reason: "invalid_reward" | "reward_function_error",
): GroupDrop | undefined {
  let resolved: ResolvedReward | null;
  try {
    resolved = resolveRewardValue(value);
  } catch (error) {
    if (!RewardValueError.isInstance(error)) throw error;
    return { reason, message: error.message, cause: error };
  }
  context.reward = resolved?.primary ?? null;
  context.rewardDetails = resolved?.details ?? {};
  const raw = value.value;
  // A reward object may carry per-turn rewards (docs/contract.md#per-turn-rewards); aligned later.
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw) && raw.turn_rewards !== undefined) {
    context.turnRewardsSource = { value: raw.turn_rewards, path: `${value.path ?? "reward"}.turn_rewards` };
  }
  return undefined;
}

/** Step 3 of {@link resolveGroupRewards}: earlier compaction segments take their session's last segment's reward. */
export function copySegmentRewards(contexts: readonly ExportedContext[]): void {
  for (const context of contexts) {
    if (isLastSegment(context)) continue;
    const last = lastSegmentOf(contexts, context);
    context.reward = last.reward;
    context.rewardDetails = { ...last.rewardDetails };
  }
}
