import { describe, expect, it } from "vitest";
import { RewardValueError } from "../errors/reward-value-error";
import { resolveRewardValue } from "./resolve-reward-value";

describe("resolveRewardValue", () => {
  it("should take a number as the primary reward", () => {
    expect(resolveRewardValue({ value: 0.25 })).toEqual({ primary: 0.25, details: {} });
    expect(resolveRewardValue({ value: -1, rewardKey: "score" })).toEqual({ primary: -1, details: {} });
  });

  it("should select the primary field with rewardKey and keep numeric helpers as details", () => {
    expect(
      resolveRewardValue({
        value: { score: 1, format: 0.5, length_penalty: -0.1, note: "ok", passed: true },
        rewardKey: "score",
      }),
    ).toEqual({ primary: 1, details: { format: 0.5, length_penalty: -0.1 } });
  });

  it("should return null for null or absent rewards", () => {
    expect(resolveRewardValue({ value: null })).toBeNull();
    expect(resolveRewardValue({ value: undefined })).toBeNull();
  });

  it.each([
    [{ value: Number.NaN, path: "output.reward" }, "output.reward: NaN is not a finite number"],
    [{ value: Number.POSITIVE_INFINITY }, "reward: Infinity is not a finite number"],
    [{ value: "1" as never }, "reward: must be a number, an object or null, got string"],
    [{ value: [1] as never }, "reward: must be a number, an object or null, got array"],
    [
      { value: { score: 1 } },
      "reward: is an object, so rewardKey (--reward-key) must name its primary field",
    ],
    [
      { value: { acc: 1 }, rewardKey: "score" },
      "reward.score: is missing (rewardKey names the primary field of the reward object)",
    ],
    [{ value: { score: "1" }, rewardKey: "score" }, 'reward.score: must be a finite number, got "1"'],
    [{ value: { score: true }, rewardKey: "score" }, "reward.score: must be a finite number, got true"],
  ])("should reject %j", (options, message) => {
    const call = () => resolveRewardValue(options);
    expect(call).toThrow(RewardValueError);
    expect(call).toThrow(message);
  });
});
