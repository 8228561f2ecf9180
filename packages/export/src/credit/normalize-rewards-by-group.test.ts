import { describe, expect, it } from "vitest";
import { GroupSizeError } from "../errors/group-size-error";
import { normalizeRewardsByGroup } from "./normalize-rewards-by-group";

describe("normalizeRewardsByGroup", () => {
  it("should group by group_index, not by position, and return advantages in input order", () => {
    // Groups 0: [1, 3] and 1: [10, 30], interleaved; centred only.
    expect(
      normalizeRewardsByGroup({
        rewards: [1, 10, 3, 30],
        groupIndices: [0, 1, 0, 1],
        nSamplesPerPrompt: 2,
        grpoStdNormalization: false,
      }),
    ).toEqual([-1, -10, 1, 10]);
  });

  it("should refuse an uneven fan-out instead of regrouping", () => {
    const call = () =>
      normalizeRewardsByGroup({
        rewards: [1, 0, 1, 0, 1],
        groupIndices: [0, 0, 0, 1, 1],
        nSamplesPerPrompt: 2,
      });
    expect(call).toThrow(GroupSizeError);
    expect(call).toThrow("group 0 has 3 member(s), expected exactly 2 (n_samples_per_prompt)");
    try {
      call();
    } catch (error) {
      expect(GroupSizeError.isInstance(error) && [error.groupIndex, error.expected, error.actual]).toEqual([
        0, 2, 3,
      ]);
    }
  });

  it("should reject misaligned lists", () => {
    expect(() =>
      normalizeRewardsByGroup({ rewards: [1], groupIndices: [0, 0], nSamplesPerPrompt: 2 }),
    ).toThrow("rewards has 1 entries but groupIndices has 2");
  });
});
