import { describe, expect, it } from "vitest";
import { ExportConfigError } from "../errors/export-config-error";
import { assertExportConfig, validateExportConfig } from "./validate-export-config";

const codes = (input: unknown, severity: "error" | "warning" = "error") =>
  validateExportConfig(input)
    .issues.filter((issue) => issue.severity === severity)
    .map((issue) => `${issue.code}@${issue.path}`);

describe("validateExportConfig", () => {
  it("should accept a single-context recipe where the agent writes the reward, with slime defaults", () => {
    const result = validateExportConfig({
      nSamplesPerPrompt: 8,
      agentWritesReward: true,
      rewardKey: "score",
    });
    expect(result.ok).toBe(true);
    expect(result.issues).toEqual([]);
    expect(result.config).toMatchObject({
      advantageEstimator: "grpo",
      rewardsNormalization: true,
      grpoStdNormalization: true,
      stdEstimator: "unbiased",
      groupRm: false,
      multiContext: false,
      agentContexts: "train",
      chatTemplateKwargs: {},
    });
  });

  it("should take agentContexts train or drop, and name the field of any other value", () => {
    const base = { nSamplesPerPrompt: 2, agentWritesReward: true };
    expect(validateExportConfig({ ...base, agentContexts: "drop" }).config?.agentContexts).toBe("drop");
    const bad = validateExportConfig({ ...base, agentContexts: "keep" });
    expect(bad.ok).toBe(false);
    expect(bad.issues.map((issue) => `${issue.code}@${issue.path}`)).toEqual(["invalid_field@agentContexts"]);
  });

  it("should catch a single-context session with no reward source", () => {
    expect(codes({ nSamplesPerPrompt: 4 })).toEqual(["missing_reward_source@customRm"]);
    expect(codes({ nSamplesPerPrompt: 4, customRm: "./rm.mjs#reward" })).toEqual([]);
  });

  it("should catch more than one context without a custom advantage function or dynamic batching", () => {
    expect(codes({ nSamplesPerPrompt: 4, multiContext: true })).toEqual([
      "multi_context_without_custom_advantage@customAdvantage",
      "multi_context_without_dynamic_batching@useDynamicBatchSize",
    ]);
    expect(
      codes({
        nSamplesPerPrompt: 4,
        multiContext: true,
        customAdvantage: "./adv.mjs#f",
        useDynamicBatchSize: true,
      }),
    ).toEqual(["multi_context_without_dynamic_batching@maxTokensPerGpu"]);
    expect(
      codes({
        nSamplesPerPrompt: 4,
        multiContext: true,
        customAdvantage: () => null,
        useDynamicBatchSize: true,
        maxTokensPerGpu: 16384,
      }),
    ).toEqual([]);
  });

  it("should reject custom advantage with reinforce_plus_plus_baseline and rloo with one sample", () => {
    expect(
      codes({
        nSamplesPerPrompt: 4,
        customAdvantage: "./a.mjs",
        advantageEstimator: "reinforce_plus_plus_baseline",
      }),
    ).toEqual(["custom_advantage_with_reinforce_plus_plus_baseline@advantageEstimator"]);
    expect(codes({ nSamplesPerPrompt: 1, agentWritesReward: true, advantageEstimator: "rloo" })).toEqual([
      "rloo_needs_two_samples@nSamplesPerPrompt",
    ]);
  });

  it("should check module#export syntax without importing anything", () => {
    expect(codes({ nSamplesPerPrompt: 2, customRm: "a#b#c" })).toEqual(["invalid_function_spec@customRm"]);
    expect(codes({ nSamplesPerPrompt: 2, customRm: "#reward" })).toEqual(["invalid_function_spec@customRm"]);
    expect(codes({ nSamplesPerPrompt: 2, customRm: "./does-not-exist.mjs#reward" })).toEqual([]);
  });

  it("should report field errors with their paths, including unknown keys", () => {
    const result = validateExportConfig({
      nSamplesPerPrompt: 0,
      advantageEstimator: "ppo",
      customRm: 3,
      nSamplesPerPromt: 2,
    });
    expect(result.ok).toBe(false);
    expect(result.issues.map(({ path, message }) => `${path}: ${message}`)).toEqual([
      "nSamplesPerPrompt: Too small: expected number to be >=1",
      'advantageEstimator: Invalid option: expected one of "grpo"|"rloo"|"reinforce_plus_plus_baseline"',
      'customRm: must be a "module#export" string or a function',
      "nSamplesPerPromt: is not an export configuration field",
    ]);
    expect(codes({})).toEqual(["invalid_field@nSamplesPerPrompt"]);
    expect(codes({ nSamplesPerPrompt: 2, groupRm: true, agentWritesReward: true })).toEqual([
      "group_rm_without_custom_rm@groupRm",
    ]);
  });

  it("should warn about settings that work but probably surprise", () => {
    expect(
      codes(
        {
          nSamplesPerPrompt: 1,
          agentWritesReward: true,
          saveDebugRolloutData: "/tmp/dump.json",
        },
        "warning",
      ),
    ).toEqual([
      "std_normalization_with_one_sample@grpoStdNormalization",
      "debug_path_without_rollout_id@saveDebugRolloutData",
      "reward_object_without_key@rewardKey",
    ]);
    expect(
      codes(
        { nSamplesPerPrompt: 4, customAdvantage: "./a.mjs", customRm: "./rm.mjs", rewardKey: "r" },
        "warning",
      ),
    ).toEqual(["custom_rm_ignored_with_custom_advantage@customRm"]);
  });

  it("should throw every error at once from assertExportConfig", () => {
    try {
      assertExportConfig({ nSamplesPerPrompt: 4, multiContext: true });
      expect.unreachable();
    } catch (error) {
      expect(ExportConfigError.isInstance(error)).toBe(true);
      if (!ExportConfigError.isInstance(error)) return;
      expect(error.issues.map((issue) => issue.code)).toEqual([
        "multi_context_without_custom_advantage",
        "multi_context_without_dynamic_batching",
      ]);
      expect(error.message).toContain(
        "customAdvantage: more than one context per session needs a custom advantage",
      );
    }
  });
});
