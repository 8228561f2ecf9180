import type { ExportConfig } from "../config/export-config";
import {
  type AdvantageFunction,
  type AdvantageInputSlot,
  validateAdvantageResult,
} from "../credit/advantage-function";
import { normalizeGroupRewards } from "../credit/normalize-group-rewards";
import { AdvantageResultError } from "../errors/advantage-result-error";
import { contextKey } from "../plan/context-name";
import type { SessionExportPlan } from "../plan/plan-session-export";
import { isLastSegment, lastSegmentOf } from "./group-contexts";
import { type GroupDrop, messageOf } from "./group-drop";
import type { ExportedContext } from "./group-export-outcome";

/** Options of {@link applyCustomAdvantage}. */
export interface ApplyCustomAdvantageOptions {
  /** The sessions' plans, in sampled order: slot `i` of the function's input is plan `i`'s contexts. */
  plans: readonly SessionExportPlan[];
  /** The Group's contexts; their `advantage` is set in place. */
  contexts: readonly ExportedContext[];
  advantage: AdvantageFunction;
}

/**
 * Calls the custom advantage function with a copy of every context's export metadata (slot → context
 * key → metadata, see docs/contract.md#custom-advantage) and sets each context's advantage from its
 * result.
 *
 * @returns `"filtered"` when the function returned `null`; a drop (`advantage_function_error`) when it
 *   threw or returned a malformed value; `undefined` when every advantage is set.
 * @throws whatever the result check throws that is not an {@link AdvantageResultError}.
 */
export async function applyCustomAdvantage({
  plans,
  contexts,
  advantage,
}: ApplyCustomAdvantageOptions): Promise<GroupDrop | "filtered" | undefined> {
  const input: AdvantageInputSlot[] = plans.map((plan) =>
    plan.ok
      ? Object.fromEntries(plan.contexts.map((c) => [contextKey(c.name), structuredClone(c.metadata)]))
      : {},
  );
  let result: unknown;
  try {
    result = await advantage(input);
  } catch (error) {
    return {
      reason: "advantage_function_error",
      message: `custom advantage function threw: ${messageOf(error)}`,
      cause: error,
    };
  }
  let credit: ReturnType<typeof validateAdvantageResult>;
  try {
    credit = validateAdvantageResult({ input, result });
  } catch (error) {
    if (!AdvantageResultError.isInstance(error)) throw error;
    return {
      reason: "advantage_function_error",
      message: `custom advantage function returned ${error.message}`,
      cause: error,
    };
  }
  if (credit === null) return "filtered";
  for (const context of contexts) context.advantage = credit[context.slot]![context.key]!;
  return undefined;
}

/**
 * Standard credit, in place: the Group statistics run over one context per trajectory (a compacted
 * session's last segment) with the config's estimator (`rewardsNormalization` off: advantage = reward);
 * earlier segments copy their last segment's advantage. Every context must have a reward.
 */
export function applyNormalizedAdvantages(
  contexts: readonly ExportedContext[],
  config: Pick<
    ExportConfig,
    "rewardsNormalization" | "advantageEstimator" | "grpoStdNormalization" | "stdEstimator"
  >,
): void {
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
