import type { ExportConfig } from "../config/export-config";
import type { ExportFunctions } from "../config/resolve-export-functions";
import type { AdvantageFunction } from "../credit/advantage-function";
import type { SideCreditFunction } from "../credit/side-credit-function";
import { GroupSizeError } from "../errors/group-size-error";
import { planSessionExport, type SessionExportPlan } from "../plan/plan-session-export";
import type { GroupRewardFunction, RewardFunction } from "../reward/reward-function";
import { type AdvantageSource, functionSpecName } from "../reward/reward-source";
import { buildTrainingRow } from "../rows/build-training-row";
import { applyTurnRewards } from "./apply-turn-rewards";
import { applyCustomAdvantage, applyNormalizedAdvantages } from "./assign-group-credit";
import { collectContexts, multipleContextsDrop, nonFinalizableDrop } from "./group-contexts";
import { droppedOutcome, type GroupDrop } from "./group-drop";
import type { ExportMode, GroupExportInput, GroupExportOutcome } from "./group-export-outcome";
import { resolveGroupRewards } from "./resolve-group-rewards";
import { applySideCredit, collectSideContexts } from "./side-contexts";

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
 * 2. plans every session ({@link planSessionExport}; implicit exports split at compactions and, with
 *    `agentContexts: "train"`, at agent switches); one non-finalizable session drops the Group;
 * 3. resolves rewards: the exported value (primary via `rewardKey`); then a group reward function
 *    replaces all, or a per-sample reward function fills the missing ones (skipped when a custom
 *    advantage function is configured);
 * 4. aligns per-turn rewards to their contexts' turns (`invalid_turn_rewards` when one does not fit);
 * 5. train only: custom advantage (no normalisation) or standard normalisation per `advantageEstimator`;
 * 6. train only: the sessions' trained side forests become side contexts, credited from their main
 *    context or by the side-credit function (docs/contract.md#side-contexts);
 * 7. builds one row per context, each session's rows together.
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
        agentContexts: config.agentContexts,
      }),
  );
  const contexts = collectContexts(plans, groupIndex);
  const dropped = (drop: GroupDrop) => droppedOutcome({ groupIndex, mode, contexts, drop });

  const planDrop =
    nonFinalizableDrop(plans) ??
    (functions.advantage === undefined ? multipleContextsDrop(plans) : undefined);
  if (planDrop) return dropped(planDrop);

  const rewardKey = mode === "eval" ? (config.evalRewardKey ?? config.rewardKey) : config.rewardKey;
  const rewardDrop = await resolveGroupRewards({
    contexts,
    plans,
    sessions,
    groupIndex,
    functions,
    rewardKey,
    decode,
    rewardFunctionName: functionSpecName(config.customRm),
  });
  if (rewardDrop) return dropped(rewardDrop);

  const advantageSource = advantageSourceOf({ config, mode, custom: functions.advantage !== undefined });
  const turnDrop = applyTurnRewards(contexts);
  if (turnDrop) return dropped(turnDrop);

  if (mode === "eval") {
    for (const context of contexts) context.advantage = 0;
  } else if (functions.advantage) {
    const credit = await applyCustomAdvantage({ plans, contexts, advantage: functions.advantage });
    if (credit === "filtered") {
      return {
        kind: "filtered",
        groupIndex,
        mode,
        reason: "advantage_function_returned_null",
        message: `group ${groupIndex} filtered: the custom advantage function returned null`,
        contexts,
      };
    }
    if (credit) return dropped(credit);
  } else {
    applyNormalizedAdvantages(contexts, config);
  }
  for (const context of contexts) context.advantageSource = advantageSource;

  // Trained side requests (docs/contract.md#side-contexts): train only, credited from the main context.
  const side = mode === "train" ? collectSideContexts(sessions, plans, groupIndex) : [];
  const sideDrop = await applySideCredit({ contexts, side, sideCredit: functions.sideCredit });
  if (sideDrop) return dropped(sideDrop);
  const all = [...contexts, ...side].sort((a, b) => a.slot - b.slot);

  const rows = all.map((context) =>
    buildTrainingRow({
      sample: context.sample,
      groupIndex,
      promptIndex: group.promptIndex ?? groupIndex,
      sampleIndex: context.slot,
      contextName: context.name,
      metadata: context.metadata,
      reward: context.reward,
      rewardDetails: context.rewardDetails,
      rewardSource: context.rewardSource,
      advantage: context.advantage!,
      inlineImageBytes: config.inlineImageBytes,
      ...(context.requestClass !== undefined ? { requestClass: context.requestClass } : {}),
      ...(context.parentStateHash !== undefined ? { parentStateHash: context.parentStateHash } : {}),
      ...(context.turnRewards !== undefined ? { turnRewards: context.turnRewards } : {}),
      ...(context.segment !== undefined ? { segmentKind: context.segment.kind } : {}),
    }),
  );
  return { kind: "exported", groupIndex, mode, rows, contexts: all };
}

/** How {@link exportGroup} assigns the advantage of a Group's contexts in `mode` (see {@link AdvantageSource}). */
function advantageSourceOf({
  config,
  mode,
  custom,
}: {
  config: ExportConfig;
  mode: ExportMode;
  custom: boolean;
}): AdvantageSource {
  if (mode === "eval") return { kind: "eval" };
  if (custom) return { kind: "custom_advantage", function: functionSpecName(config.customAdvantage) };
  if (!config.rewardsNormalization) return { kind: "reward" };
  return {
    kind: "normalized",
    estimator: config.advantageEstimator,
    ...(config.advantageEstimator === "grpo" && { std_normalization: config.grpoStdNormalization }),
  };
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
  if (typeof config.sideCredit === "function") functions.sideCredit = config.sideCredit as SideCreditFunction;
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
