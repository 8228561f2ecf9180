import type { ExportFunctions } from "../config/resolve-export-functions";
import { RewardValueError } from "../errors/reward-value-error";
import type { SessionExportPlan } from "../plan/plan-session-export";
import type { RewardValue } from "../plan/session-output-like";
import { type ResolvedReward, resolveRewardValue } from "../reward/resolve-reward-value";
import type { GroupRewardFunction, RewardFunction, RewardFunctionInput } from "../reward/reward-function";
import type { RewardSource } from "../reward/reward-source";
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
  /**
   * The reward function's name as each context's `rewardSource` records it (its `module#export` spec).
   * @default "inline"
   */
  rewardFunctionName?: string | undefined;
}

/**
 * Resolves the reward of every context of a Group, in place (see docs/contract.md#reward):
 * 1. the exported value (an unusable one drops the Group, `invalid_reward`);
 * 2. a group reward function replaces them all, or else (without a custom advantage function) a
 *    per-sample reward function fills the missing ones of last segments (a throw or an unusable value
 *    drops the Group, `reward_function_error`);
 * 3. earlier segments (compaction segments, agent contexts) copy their session's last segment;
 * 4. without a custom advantage function, a context still without reward drops the Group (`missing_reward`).
 *
 * Each context's `rewardSource` records which step gave its reward ({@link RewardSource}).
 *
 * @returns the drop, or `undefined` when every reward is resolved.
 * @throws whatever a reward resolution throws that is not a {@link RewardValueError}.
 */
export async function resolveGroupRewards(
  options: ResolveGroupRewardsOptions,
): Promise<GroupDrop | undefined> {
  const { contexts, plans, functions, rewardKey, rewardFunctionName = "inline" } = options;
  const hasCustomAdvantage = functions.advantage !== undefined;
  const inputOf = (context: ExportedContext) => rewardFunctionInput(context, options);
  const fn = { rewardKey, inputOf, name: rewardFunctionName };
  const drop =
    applyExportedRewards({ contexts, plans, rewardKey }) ??
    (functions.groupReward
      ? await applyGroupRewardFunction({ contexts, groupReward: functions.groupReward, ...fn })
      : functions.reward && !hasCustomAdvantage
        ? await applyRewardFunction({ contexts, reward: functions.reward, ...fn })
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
  const planned = plans.flatMap((plan, slot) =>
    plan.ok ? plan.contexts.map((context) => ({ slot, rewardPath: context.rewardPath })) : [],
  );
  for (const [i, context] of contexts.entries()) {
    const { slot, rewardPath } = planned[i]!;
    const value = context.exportedReward;
    const isObject = typeof value === "object" && value !== null;
    const source: RewardSource = {
      kind: "agent_output",
      path: rewardPath,
      ...(isObject && rewardKey !== undefined && { key: rewardKey }),
    };
    const drop = setResolvedReward(
      context,
      { value, rewardKey, path: `sessions[${slot}].${rewardPath}` },
      "invalid_reward",
      source,
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
  name,
}: {
  contexts: ExportedContext[];
  groupReward: GroupRewardFunction;
  rewardKey: string | undefined;
  inputOf: (context: ExportedContext) => RewardFunctionInput;
  name: string;
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
      { kind: "group_reward_function", function: name },
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
  name,
}: {
  contexts: ExportedContext[];
  reward: RewardFunction;
  rewardKey: string | undefined;
  inputOf: (context: ExportedContext) => RewardFunctionInput;
  name: string;
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
    const drop = setResolvedReward(context, { value: values[i], rewardKey, path }, "reward_function_error", {
      kind: "reward_function",
      function: name,
    });
    if (drop) return drop;
  }
  return undefined;
}

/**
 * Sets `context`'s reward from `value` resolved with {@link resolveRewardValue}, and its `rewardSource`
 * to `source` (`none` when the value is `null`); a {@link RewardValueError} becomes a drop with `reason`.
 */
function setResolvedReward(
  context: ExportedContext,
  value: { value: RewardValue; rewardKey: string | undefined; path: string | undefined },
  reason: "invalid_reward" | "reward_function_error",
  source: RewardSource,
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
  context.rewardSource = resolved === null ? { kind: "none" } : source;
  const raw = value.value;
  // A reward object may carry per-turn rewards (docs/contract.md#per-turn-rewards); aligned later.
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw) && raw.turn_rewards !== undefined) {
    context.turnRewardsSource = { value: raw.turn_rewards, path: `${value.path ?? "reward"}.turn_rewards` };
  }
  return undefined;
}

/**
 * Step 3 of {@link resolveGroupRewards}: earlier segments (compaction segments, agent contexts) take their session's last segment's
 * reward, and its source with `copied_from` naming that segment.
 */
export function copySegmentRewards(contexts: readonly ExportedContext[]): void {
  for (const context of contexts) {
    if (isLastSegment(context)) continue;
    const last = lastSegmentOf(contexts, context);
    context.reward = last.reward;
    context.rewardDetails = { ...last.rewardDetails };
    context.rewardSource = { ...(last.rewardSource ?? { kind: "none" }), copied_from: last.stateHash };
  }
}
