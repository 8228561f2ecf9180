import type { ExportConfig } from "../config/export-config";
import type { ExportFunctions } from "../config/resolve-export-functions";
import {
  type AdvantageFunction,
  type AdvantageInputSlot,
  validateAdvantageResult,
} from "../credit/advantage-function";
import { normalizeGroupRewards } from "../credit/normalize-group-rewards";
import { AdvantageResultError } from "../errors/advantage-result-error";
import { GroupSizeError } from "../errors/group-size-error";
import { RewardValueError } from "../errors/reward-value-error";
import { contextKey } from "../plan/context-name";
import { planSessionExport, type SessionExportPlan } from "../plan/plan-session-export";
import type { RewardValue } from "../plan/session-output-like";
import { resolveRewardValue } from "../reward/resolve-reward-value";
import type { GroupRewardFunction, RewardFunction, RewardFunctionInput } from "../reward/reward-function";
import { buildTrainingRow } from "../rows/build-training-row";
import type {
  ExportedContext,
  ExportMode,
  GroupDropReason,
  GroupExportInput,
  GroupExportOutcome,
  SessionDrop,
} from "./group-export-outcome";

/** Options of {@link exportGroup}. */
export interface ExportGroupOptions {
  group: GroupExportInput;
  /** A parsed config (see {@link assertExportConfig}). */
  config: ExportConfig;
  /**
   * Loaded user functions ({@link resolveExportFunctions}); must match the config. When omitted, the
   * functions given inline in the config are used (a `module#export` string must be loaded first).
   */
  functions?: ExportFunctions;
  /** @default "train" */
  mode?: ExportMode;
  /** Token decoder, used to give reward functions `promptText` / `responseText`. */
  decode?: (ids: number[]) => string;
}

/**
 * Exports one finished Group (see docs/contract.md#export-records, docs/contract.md#reward and
 * docs/contract.md#advantage):
 * 1. checks the fan-out (`nSamplesPerPrompt`, or `nSamplesPerEvalPrompt` in eval);
 * 2. plans every session ({@link planSessionExport}); one non-finalizable session drops the Group;
 * 3. resolves rewards: the exported value (primary via `rewardKey`); then a group reward function
 *    replaces all, or a per-sample reward function fills the missing ones (skipped when a custom
 *    advantage function is configured);
 * 4. train only: custom advantage (no normalisation) or standard normalisation per `advantageEstimator`;
 * 5. builds one row per context.
 *
 * Agent- and user-function failures drop the Group with a reason; nothing is partially exported.
 *
 * @throws GroupSizeError when the Group does not have exactly the configured number of sessions.
 * @throws TypeError when the config names a function that is not in `functions`.
 */
export async function exportGroup(options: ExportGroupOptions): Promise<GroupExportOutcome> {
  const { group, config, mode = "train", decode } = options;
  const functions = options.functions ?? inlineFunctions(config);
  const { groupIndex, sessions } = group;
  checkFunctions({ config, functions });

  const expected = mode === "train" ? config.nSamplesPerPrompt : config.nSamplesPerEvalPrompt;
  if (expected !== undefined && sessions.length !== expected) {
    throw new GroupSizeError({ groupIndex, expected, actual: sessions.length });
  }

  const plans = sessions.map(
    (session): SessionExportPlan =>
      planSessionExport({
        sessionId: session.sessionId,
        output: session.output,
        forest: session.forest,
        defaultTemplateKwargs: config.chatTemplateKwargs,
      }),
  );
  const contexts: ExportedContext[] = [];
  for (const [slot, plan] of plans.entries()) {
    if (!plan.ok) continue;
    for (const context of plan.contexts) {
      contexts.push({
        sessionId: plan.sessionId,
        slot,
        groupIndex,
        name: context.name,
        key: contextKey(context.name),
        stateHash: context.stateHash,
        sample: context.sample,
        metadata: context.metadata,
        exportedReward: context.reward,
        reward: null,
        rewardDetails: {},
        advantage: null,
        ...(context.segment !== undefined ? { segment: context.segment } : {}),
      });
    }
  }
  const drop = (
    reason: GroupDropReason,
    message: string,
    extra: { sessions?: SessionDrop[]; cause?: unknown } = {},
  ): GroupExportOutcome => ({
    kind: "dropped",
    groupIndex,
    mode,
    reason,
    message: `group ${groupIndex} dropped (${reason}): ${message}`,
    sessions: extra.sessions ?? [],
    contexts,
    ...(extra.cause === undefined ? {} : { cause: extra.cause }),
  });

  const failures: SessionDrop[] = [];
  for (const plan of plans) {
    if (!plan.ok) failures.push({ sessionId: plan.sessionId, reason: plan.reason, message: plan.message });
  }
  if (failures.length > 0) {
    const first = failures[0]!;
    const more = failures.length > 1 ? ` (and ${failures.length - 1} more non-finalizable session(s))` : "";
    return drop(first.reason, `${first.message}${more}`, { sessions: failures });
  }

  const hasCustomAdvantage = functions.advantage !== undefined;
  if (!hasCustomAdvantage) {
    // Compaction segments of one implicit export are one trajectory, not several contexts.
    const multi = plans.find(
      (plan) => plan.ok && plan.contexts.filter((context) => isLastSegment(context)).length > 1,
    );
    if (multi?.ok) {
      return drop(
        "multiple_contexts_without_custom_advantage",
        `session ${multi.sessionId} exported ${multi.contexts.length} contexts, but no custom advantage function ` +
          "is configured to assign their credit",
      );
    }
  }

  // Rewards.
  const rewardKey = mode === "eval" ? (config.evalRewardKey ?? config.rewardKey) : config.rewardKey;
  const plannedPaths = plans.flatMap((plan, slot) =>
    plan.ok ? plan.contexts.map((context) => `sessions[${slot}].${context.rewardPath}`) : [],
  );
  for (const [i, context] of contexts.entries()) {
    try {
      setReward(
        context,
        resolveRewardValue({ value: context.exportedReward, rewardKey, path: plannedPaths[i] }),
      );
    } catch (error) {
      if (!RewardValueError.isInstance(error)) throw error;
      return drop("invalid_reward", error.message, { cause: error });
    }
  }
  const inputOf = (context: ExportedContext): RewardFunctionInput => {
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
  };
  if (functions.groupReward) {
    let values: readonly RewardValue[];
    try {
      values = await functions.groupReward(contexts.map(inputOf));
    } catch (error) {
      return drop("reward_function_error", `group reward function threw: ${messageOf(error)}`, {
        cause: error,
      });
    }
    if (!Array.isArray(values) || values.length !== contexts.length) {
      return drop(
        "reward_function_error",
        `group reward function must return a list of ${contexts.length} rewards (one per context), got ` +
          (Array.isArray(values) ? `${values.length}` : typeof values),
      );
    }
    for (const [i, context] of contexts.entries()) {
      try {
        setReward(context, resolveRewardValue({ value: values[i], rewardKey, path: `groupReward[${i}]` }));
      } catch (error) {
        if (!RewardValueError.isInstance(error)) throw error;
        return drop("reward_function_error", error.message, { cause: error });
      }
    }
  } else if (functions.reward && !hasCustomAdvantage) {
    const rewardFunction = functions.reward;
    const pending = contexts.filter((context) => context.reward === null && isLastSegment(context));
    let values: RewardValue[];
    try {
      values = await Promise.all(pending.map(async (context) => rewardFunction(inputOf(context))));
    } catch (error) {
      return drop("reward_function_error", `reward function threw: ${messageOf(error)}`, { cause: error });
    }
    for (const [i, context] of pending.entries()) {
      try {
        const path = `reward(sessions[${context.slot}]${context.name === null ? "" : `.${context.name}`})`;
        setReward(context, resolveRewardValue({ value: values[i], rewardKey, path }));
      } catch (error) {
        if (!RewardValueError.isInstance(error)) throw error;
        return drop("reward_function_error", error.message, { cause: error });
      }
    }
  }
  // Earlier compaction segments take the reward of their session's last segment.
  for (const context of contexts) {
    if (isLastSegment(context)) continue;
    const last = lastSegmentOf(contexts, context);
    context.reward = last.reward;
    context.rewardDetails = { ...last.rewardDetails };
  }
  if (!hasCustomAdvantage) {
    const missing = contexts.find((context) => context.reward === null);
    if (missing) {
      return drop(
        "missing_reward",
        `session ${missing.sessionId} context ${JSON.stringify(missing.name)} has no reward, and no reward ` +
          "function supplied one",
      );
    }
  }

  // Credit.
  if (mode === "eval") {
    for (const context of contexts) context.advantage = 0;
  } else if (functions.advantage) {
    const input: AdvantageInputSlot[] = plans.map((plan) =>
      plan.ok
        ? Object.fromEntries(plan.contexts.map((c) => [contextKey(c.name), structuredClone(c.metadata)]))
        : {},
    );
    let result: unknown;
    try {
      result = await functions.advantage(input);
    } catch (error) {
      return drop("advantage_function_error", `custom advantage function threw: ${messageOf(error)}`, {
        cause: error,
      });
    }
    let credit: ReturnType<typeof validateAdvantageResult>;
    try {
      credit = validateAdvantageResult({ input, result });
    } catch (error) {
      if (!AdvantageResultError.isInstance(error)) throw error;
      return drop("advantage_function_error", `custom advantage function returned ${error.message}`, {
        cause: error,
      });
    }
    if (credit === null) {
      return {
        kind: "filtered",
        groupIndex,
        mode,
        reason: "advantage_function_returned_null",
        message: `group ${groupIndex} filtered: the custom advantage function returned null`,
        contexts,
      };
    }
    for (const context of contexts) context.advantage = credit[context.slot]![context.key]!;
  } else {
    // Group statistics over one context per trajectory (a compacted session's last segment).
    const primary = contexts.filter((context) => isLastSegment(context));
    const rewards = primary.map((context) => context.reward!);
    const advantages = config.rewardsNormalization
      ? normalizeGroupRewards({
          rewards,
          estimator: config.advantageEstimator,
          grpoStdNormalization: config.grpoStdNormalization,
          stdEstimator: config.stdEstimator,
        })
      : rewards;
    for (const [i, context] of primary.entries()) context.advantage = advantages[i]!;
    for (const context of contexts) {
      if (!isLastSegment(context)) context.advantage = lastSegmentOf(contexts, context).advantage;
    }
  }

  const rows = contexts.map((context) =>
    buildTrainingRow({
      sample: context.sample,
      groupIndex,
      promptIndex: group.promptIndex ?? groupIndex,
      sampleIndex: context.slot,
      contextName: context.name,
      metadata: context.metadata,
      reward: context.reward,
      rewardDetails: context.rewardDetails,
      advantage: context.advantage!,
      inlineImageBytes: config.inlineImageBytes,
    }),
  );
  return { kind: "exported", groupIndex, mode, rows, contexts };
}

/** True unless the context is an earlier compaction segment of its session. */
function isLastSegment(context: { segment?: { index: number; count: number } }): boolean {
  return context.segment === undefined || context.segment.index === context.segment.count - 1;
}

/** The last compaction segment of the session `context` belongs to. */
function lastSegmentOf(contexts: readonly ExportedContext[], context: ExportedContext): ExportedContext {
  return contexts.find(
    (other) => other.slot === context.slot && other.segment !== undefined && isLastSegment(other),
  )!;
}

function setReward(context: ExportedContext, resolved: ReturnType<typeof resolveRewardValue>): void {
  context.reward = resolved?.primary ?? null;
  context.rewardDetails = resolved?.details ?? {};
}

/** The functions a config holds directly (not as `module#export` strings). */
function inlineFunctions(config: ExportConfig): ExportFunctions {
  const functions: ExportFunctions = {};
  if (typeof config.customRm === "function") {
    if (config.groupRm) functions.groupReward = config.customRm as GroupRewardFunction;
    else functions.reward = config.customRm as RewardFunction;
  }
  if (typeof config.customAdvantage === "function")
    functions.advantage = config.customAdvantage as AdvantageFunction;
  return functions;
}

function checkFunctions({ config, functions }: { config: ExportConfig; functions: ExportFunctions }): void {
  if (config.customAdvantage !== undefined && functions.advantage === undefined) {
    throw new TypeError(
      "customAdvantage is configured but not loaded; pass resolveExportFunctions(config) as functions",
    );
  }
  if (
    config.customRm !== undefined &&
    functions.reward === undefined &&
    functions.groupReward === undefined
  ) {
    throw new TypeError(
      "customRm is configured but not loaded; pass resolveExportFunctions(config) as functions",
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
