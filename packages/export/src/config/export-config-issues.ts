import { formatFieldPath } from "@relax/chat";
import type { z } from "zod";
import type { ExportConfigIssue } from "../errors/export-config-error";
import type { ExportConfig } from "./export-config";
import { parseFunctionSpec } from "./function-spec";

const error = (code: string, path: string, message: string): ExportConfigIssue => ({
  severity: "error",
  code,
  path,
  message,
});
const warning = (code: string, path: string, message: string): ExportConfigIssue => ({
  severity: "warning",
  code,
  path,
  message,
});

/**
 * The `invalid_field` errors of a config that did not parse, one per zod issue, in zod's order: an
 * unknown key is reported at its own path (`a.b,c` for keys `b` and `c` of `a`), anything else at the
 * issue's path (`(config)` for the root).
 */
export function shapeIssues(issues: readonly z.core.$ZodIssue[]): ExportConfigIssue[] {
  return issues.map((issue) =>
    issue.code === "unrecognized_keys"
      ? error(
          "invalid_field",
          formatFieldPath([...issue.path, issue.keys.join(",")]),
          "is not an export configuration field",
        )
      : error("invalid_field", formatFieldPath(issue.path) || "(config)", issue.message),
  );
}

/**
 * The `invalid_function_spec` errors of `customRm`, `customAdvantage` and `sideCredit` (in that order): a string
 * value must parse as `module#export` (syntax only; nothing is imported). Function values pass.
 */
export function functionSpecIssues(config: ExportConfig): ExportConfigIssue[] {
  const issues: ExportConfigIssue[] = [];
  for (const field of ["customRm", "customAdvantage", "sideCredit"] as const) {
    const value = config[field];
    if (typeof value !== "string") continue;
    try {
      parseFunctionSpec(value);
    } catch (specError) {
      issues.push(error("invalid_function_spec", field, (specError as Error).message));
    }
  }
  return issues;
}

/**
 * The recipe's semantic errors, in a fixed order: the reward source or multi-context requirements,
 * custom advantage with `reinforce_plus_plus_baseline`, `rloo` with one sample, `groupRm` without
 * `customRm`. Codes are listed on {@link ExportConfigIssue}.
 */
export function recipeErrors(config: ExportConfig): ExportConfigIssue[] {
  const issues: ExportConfigIssue[] = [];
  const hasCustomAdvantage = config.customAdvantage !== undefined;
  if (config.multiContext) {
    if (!hasCustomAdvantage) {
      issues.push(
        error(
          "multi_context_without_custom_advantage",
          "customAdvantage",
          "more than one context per session needs a custom advantage function " +
            "(--agentic-custom-advantage-path): one outcome cannot say how much credit each context gets",
        ),
      );
    }
    if (!config.useDynamicBatchSize || config.maxTokensPerGpu === undefined) {
      issues.push(
        error(
          "multi_context_without_dynamic_batching",
          config.useDynamicBatchSize ? "maxTokensPerGpu" : "useDynamicBatchSize",
          "multi-context training needs dynamic batching (--use-dynamic-batch-size --max-tokens-per-gpu)",
        ),
      );
    }
  } else if (!hasCustomAdvantage && !config.agentWritesReward && config.customRm === undefined) {
    issues.push(
      error(
        "missing_reward_source",
        "customRm",
        "a single-context session needs a reward: set agentWritesReward (--agent-writes-reward) when the agent writes `reward` " +
          "in its output, or configure a reward function (--custom-rm-path)",
      ),
    );
  }

  if (hasCustomAdvantage && config.advantageEstimator === "reinforce_plus_plus_baseline") {
    issues.push(
      error(
        "custom_advantage_with_reinforce_plus_plus_baseline",
        "advantageEstimator",
        "reinforce_plus_plus_baseline cannot be combined with a custom advantage function",
      ),
    );
  }
  if (
    !hasCustomAdvantage &&
    config.advantageEstimator === "rloo" &&
    config.rewardsNormalization &&
    config.nSamplesPerPrompt < 2
  ) {
    issues.push(
      error(
        "rloo_needs_two_samples",
        "nSamplesPerPrompt",
        "rloo's leave-one-out baseline needs at least 2 samples per prompt",
      ),
    );
  }
  if (config.groupRm && config.customRm === undefined) {
    issues.push(
      error(
        "group_rm_without_custom_rm",
        "groupRm",
        "groupRm (--group-rm) needs customRm (--custom-rm-path)",
      ),
    );
  }
  return issues;
}

/**
 * The recipe's warnings, in a fixed order: `customRm` ignored under a custom advantage, GRPO std
 * normalisation with one sample, a debug dump path without `{rollout_id}`, a reward source without
 * `rewardKey`.
 */
export function recipeWarnings(config: ExportConfig): ExportConfigIssue[] {
  const issues: ExportConfigIssue[] = [];
  const hasCustomAdvantage = config.customAdvantage !== undefined;
  if (hasCustomAdvantage && config.customRm !== undefined && !config.groupRm) {
    issues.push(
      warning(
        "custom_rm_ignored_with_custom_advantage",
        "customRm",
        "with a custom advantage function the per-sample reward function is not called (only a reviewed " +
          "group reward function runs, with --group-rm); put every credit signal in export metadata",
      ),
    );
  }
  if (
    !hasCustomAdvantage &&
    config.advantageEstimator === "grpo" &&
    config.grpoStdNormalization &&
    config.nSamplesPerPrompt === 1
  ) {
    issues.push(
      warning(
        "std_normalization_with_one_sample",
        "grpoStdNormalization",
        "with one sample per prompt every GRPO advantage is 0 (slime turns std normalisation off here)",
      ),
    );
  }
  if (config.saveDebugRolloutData !== undefined && !config.saveDebugRolloutData.includes("{rollout_id}")) {
    issues.push(
      warning(
        "debug_path_without_rollout_id",
        "saveDebugRolloutData",
        "the path has no {rollout_id} placeholder, so every step overwrites the same file",
      ),
    );
  }
  if ((config.agentWritesReward || config.customRm !== undefined) && config.rewardKey === undefined) {
    issues.push(
      warning(
        "reward_object_without_key",
        "rewardKey",
        "no rewardKey (--reward-key): a reward written as an object will drop its Group",
      ),
    );
  }
  return issues;
}
