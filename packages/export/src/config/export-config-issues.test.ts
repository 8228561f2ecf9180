import { describe, expect, it } from "vitest";
import { exportConfigSchema } from "./export-config";
import { functionSpecIssues, recipeErrors, recipeWarnings, shapeIssues } from "./export-config-issues";

const config = (input: Record<string, unknown>) =>
  exportConfigSchema.parse({ nSamplesPerPrompt: 4, ...input });
const codes = (issues: { code: string; path: string; severity: string }[]) =>
  issues.map((issue) => `${issue.severity}:${issue.code}@${issue.path}`);

describe("shapeIssues", () => {
  it("should report an unknown key at its own path and any other issue at its path or (config)", () => {
    const unknown = exportConfigSchema.safeParse({ nSamplesPerPrompt: 1, bogus: 1, other: 2 });
    expect(unknown.success).toBe(false);
    if (unknown.success) return;
    expect(shapeIssues(unknown.error.issues)).toEqual([
      {
        severity: "error",
        code: "invalid_field",
        path: "bogus,other",
        message: "is not an export configuration field",
      },
    ]);
    const root = exportConfigSchema.safeParse(7);
    expect(root.success).toBe(false);
    if (root.success) return;
    expect(codes(shapeIssues(root.error.issues))).toEqual(["error:invalid_field@(config)"]);
    const field = exportConfigSchema.safeParse({ nSamplesPerPrompt: 0 });
    expect(field.success).toBe(false);
    if (field.success) return;
    expect(codes(shapeIssues(field.error.issues))).toEqual(["error:invalid_field@nSamplesPerPrompt"]);
  });
});

describe("functionSpecIssues", () => {
  it("should check string specs of customRm then customAdvantage, and let functions pass", () => {
    expect(
      codes(functionSpecIssues(config({ customRm: "a#b#c", customAdvantage: "#f", sideCredit: "x#y#z" }))),
    ).toEqual([
      "error:invalid_function_spec@customRm",
      "error:invalid_function_spec@customAdvantage",
      "error:invalid_function_spec@sideCredit",
    ]);
    expect(functionSpecIssues(config({ customRm: "./rm.mjs#reward", customAdvantage: () => null }))).toEqual(
      [],
    );
  });
});

describe("recipeErrors", () => {
  it("should list every semantic error of a recipe, in order", () => {
    expect(codes(recipeErrors(config({})))).toEqual(["error:missing_reward_source@customRm"]);
    expect(
      codes(
        recipeErrors(
          config({
            multiContext: true,
            groupRm: true,
            customAdvantage: "./a.mjs#f",
            advantageEstimator: "reinforce_plus_plus_baseline",
          }),
        ),
      ),
    ).toEqual([
      "error:multi_context_without_dynamic_batching@useDynamicBatchSize",
      "error:custom_advantage_with_reinforce_plus_plus_baseline@advantageEstimator",
      "error:group_rm_without_custom_rm@groupRm",
    ]);
    expect(
      codes(
        recipeErrors(config({ nSamplesPerPrompt: 1, advantageEstimator: "rloo", agentWritesReward: true })),
      ),
    ).toEqual(["error:rloo_needs_two_samples@nSamplesPerPrompt"]);
    expect(
      recipeErrors(
        config({
          nSamplesPerPrompt: 1,
          advantageEstimator: "rloo",
          rewardsNormalization: false,
          customRm: "./r#f",
        }),
      ),
    ).toEqual([]);
  });
});

describe("recipeWarnings", () => {
  it("should list every warning of a recipe, in order", () => {
    expect(
      codes(
        recipeWarnings(
          config({
            customAdvantage: "./a.mjs#f",
            customRm: "./r.mjs#f",
            saveDebugRolloutData: "/tmp/dump.json",
          }),
        ),
      ),
    ).toEqual([
      "warning:custom_rm_ignored_with_custom_advantage@customRm",
      "warning:debug_path_without_rollout_id@saveDebugRolloutData",
      "warning:reward_object_without_key@rewardKey",
    ]);
    expect(
      codes(recipeWarnings(config({ nSamplesPerPrompt: 1, agentWritesReward: true, rewardKey: "r" }))),
    ).toEqual(["warning:std_normalization_with_one_sample@grpoStdNormalization"]);
    expect(
      recipeWarnings(
        config({ agentWritesReward: true, rewardKey: "r", saveDebugRolloutData: "/d/{rollout_id}.json" }),
      ),
    ).toEqual([]);
  });
});
