import { formatFieldPath } from "@relax/chat";
import { ExportConfigError } from "../errors/export-config-error";
import { type ExportConfig, exportConfigSchema } from "./export-config";
import { parseFunctionSpec } from "./function-spec";

/**
 * One finding of {@link validateExportConfig}. `code` is stable for tests and tooling:
 * errors — `invalid_field`, `invalid_function_spec`, `missing_reward_source`,
 * `multi_context_without_custom_advantage`, `multi_context_without_dynamic_batching`,
 * `custom_advantage_with_reinforce_plus_plus_baseline`, `rloo_needs_two_samples`,
 * `group_rm_without_custom_rm`; warnings — `custom_rm_ignored_with_custom_advantage`,
 * `std_normalization_with_one_sample`, `debug_path_without_rollout_id`, `reward_object_without_key`.
 */
export interface ExportConfigIssue {
  severity: "error" | "warning";
  code: string;
  /** Field path in the config object, e.g. `customAdvantage`. */
  path: string;
  message: string;
}

/** Result of {@link validateExportConfig}: the parsed config when the shape is valid, and every issue. */
export interface ExportConfigValidation {
  /** Present when the shape parsed (semantic errors may still be listed in `issues`). */
  config?: ExportConfig;
  issues: ExportConfigIssue[];
  /** True when no issue has severity `error`. */
  ok: boolean;
}

/**
 * Checks an export configuration before any agent runs. Pure: no imports, no I/O (function specs are
 * checked for syntax only; {@link resolveExportFunctions} imports them). Catches, besides bad field
 * types: a single-context recipe with no reward source (the agent does not write `reward`, and there
 * is no `customRm`), a multi-context recipe without `customAdvantage` or without dynamic batching, custom
 * advantage with `reinforce_plus_plus_baseline`, `rloo` with one sample.
 * @see docs/contract.md#export-records, docs/contract.md#reward, docs/contract.md#advantage
 */
export function validateExportConfig(input: unknown): ExportConfigValidation {
  const parsed = exportConfigSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue): ExportConfigIssue =>
        issue.code === "unrecognized_keys"
          ? {
              severity: "error",
              code: "invalid_field",
              path: formatFieldPath([...issue.path, issue.keys.join(",")]),
              message: "is not an export configuration field",
            }
          : {
              severity: "error",
              code: "invalid_field",
              path: formatFieldPath(issue.path) || "(config)",
              message: issue.message,
            },
    );
    return { issues, ok: false };
  }
  const config = parsed.data;
  const issues: ExportConfigIssue[] = [];
  const error = (code: string, path: string, message: string) =>
    issues.push({ severity: "error", code, path, message });
  const warn = (code: string, path: string, message: string) =>
    issues.push({ severity: "warning", code, path, message });

  for (const field of ["customRm", "customAdvantage"] as const) {
    const value = config[field];
    if (typeof value !== "string") continue;
    try {
      parseFunctionSpec(value);
    } catch (specError) {
      error("invalid_function_spec", field, (specError as Error).message);
    }
  }

  const hasCustomAdvantage = config.customAdvantage !== undefined;
  if (config.multiContext) {
    if (!hasCustomAdvantage) {
      error(
        "multi_context_without_custom_advantage",
        "customAdvantage",
        "more than one context per session needs a custom advantage function " +
          "(--agentic-custom-advantage-path): one outcome cannot say how much credit each context gets",
      );
    }
    if (!config.useDynamicBatchSize || config.maxTokensPerGpu === undefined) {
      error(
        "multi_context_without_dynamic_batching",
        config.useDynamicBatchSize ? "maxTokensPerGpu" : "useDynamicBatchSize",
        "multi-context training needs dynamic batching (--use-dynamic-batch-size --max-tokens-per-gpu)",
      );
    }
  } else if (!hasCustomAdvantage && !config.agentWritesReward && config.customRm === undefined) {
    error(
      "missing_reward_source",
      "customRm",
      "a single-context session needs a reward: set agentWritesReward (--agent-writes-reward) when the agent writes `reward` " +
        "in its output, or configure a reward function (--custom-rm-path)",
    );
  }

  if (hasCustomAdvantage && config.advantageEstimator === "reinforce_plus_plus_baseline") {
    error(
      "custom_advantage_with_reinforce_plus_plus_baseline",
      "advantageEstimator",
      "reinforce_plus_plus_baseline cannot be combined with a custom advantage function",
    );
  }
  if (
    !hasCustomAdvantage &&
    config.advantageEstimator === "rloo" &&
    config.rewardsNormalization &&
    config.nSamplesPerPrompt < 2
  ) {
    error(
      "rloo_needs_two_samples",
      "nSamplesPerPrompt",
      "rloo's leave-one-out baseline needs at least 2 samples per prompt",
    );
  }
  if (config.groupRm && config.customRm === undefined) {
    error("group_rm_without_custom_rm", "groupRm", "groupRm (--group-rm) needs customRm (--custom-rm-path)");
  }

  if (hasCustomAdvantage && config.customRm !== undefined && !config.groupRm) {
    warn(
      "custom_rm_ignored_with_custom_advantage",
      "customRm",
      "with a custom advantage function the per-sample reward function is not called (only a reviewed " +
        "group reward function runs, with --group-rm); put every credit signal in export metadata",
    );
  }
  if (
    !hasCustomAdvantage &&
    config.advantageEstimator === "grpo" &&
    config.grpoStdNormalization &&
    config.nSamplesPerPrompt === 1
  ) {
    warn(
      "std_normalization_with_one_sample",
      "grpoStdNormalization",
      "with one sample per prompt every GRPO advantage is 0 (slime turns std normalisation off here)",
    );
  }
  if (config.saveDebugRolloutData !== undefined && !config.saveDebugRolloutData.includes("{rollout_id}")) {
    warn(
      "debug_path_without_rollout_id",
      "saveDebugRolloutData",
      "the path has no {rollout_id} placeholder, so every step overwrites the same file",
    );
  }
  if ((config.agentWritesReward || config.customRm !== undefined) && config.rewardKey === undefined) {
    warn(
      "reward_object_without_key",
      "rewardKey",
      "no rewardKey (--reward-key): a reward written as an object will drop its Group",
    );
  }
  return { config, issues, ok: !issues.some((issue) => issue.severity === "error") };
}

/**
 * {@link validateExportConfig}, throwing on errors.
 * @throws ExportConfigError listing every error-severity issue.
 */
export function assertExportConfig(input: unknown): ExportConfig {
  const result = validateExportConfig(input);
  if (!result.ok || result.config === undefined) {
    throw new ExportConfigError({ issues: result.issues.filter((issue) => issue.severity === "error") });
  }
  return result.config;
}
