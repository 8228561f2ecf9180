import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeGroupRewards } from "./normalize-group-rewards";

describe("normalizeGroupRewards", () => {
  it("should mean-centre and divide by the unbiased std + 1e-6 for GRPO (hand-computed)", () => {
    // rewards [1, 0, 0, 1]: mean 0.5, centred ±0.5, unbiased std = sqrt((4 × 0.25) / 3) = sqrt(1/3).
    const std = Math.sqrt(1 / 3);
    expect(normalizeGroupRewards({ rewards: [1, 0, 0, 1] })).toEqual([
      0.5 / (std + 1e-6),
      -0.5 / (std + 1e-6),
      -0.5 / (std + 1e-6),
      0.5 / (std + 1e-6),
    ]);
    expect(normalizeGroupRewards({ rewards: [1, 0, 0, 1] })[0]).toBeCloseTo(0.8660239, 6);
  });

  it("should divide by the population std when asked", () => {
    // population std of ±0.5 is 0.5 → advantages ±0.5 / 0.500001.
    expect(normalizeGroupRewards({ rewards: [1, 0, 0, 1], stdEstimator: "population" })).toEqual([
      0.5 / 0.500001,
      -0.5 / 0.500001,
      -0.5 / 0.500001,
      0.5 / 0.500001,
    ]);
  });

  it("should only mean-centre without std normalisation and for REINFORCE++ baseline", () => {
    // rewards [3, 1, 2]: mean 2.
    expect(normalizeGroupRewards({ rewards: [3, 1, 2], grpoStdNormalization: false })).toEqual([1, -1, 0]);
    expect(normalizeGroupRewards({ rewards: [3, 1, 2], estimator: "reinforce_plus_plus_baseline" })).toEqual([
      1, -1, 0,
    ]);
  });

  it("should subtract the leave-one-out mean for RLOO (hand-computed)", () => {
    // [1, 0, 0, 1]: r_i − (Σ − r_i)/3 → 1 − 1/3, 0 − 2/3, 0 − 2/3, 1 − 1/3.
    expect(normalizeGroupRewards({ rewards: [1, 0, 0, 1], estimator: "rloo" })).toEqual([
      1 - 1 / 3,
      0 - 2 / 3,
      0 - 2 / 3,
      1 - 1 / 3,
    ]);
    // [4, 2]: 4 − 2 = 2, 2 − 4 = −2.
    expect(normalizeGroupRewards({ rewards: [4, 2], estimator: "rloo" })).toEqual([2, -2]);
  });

  it.each(["grpo", "rloo", "reinforce_plus_plus_baseline"] as const)(
    "should give exactly zero advantages for equal rewards with %s",
    (estimator) => {
      for (const value of [0, 1, 0.1, -7.3]) {
        const advantages = normalizeGroupRewards({ rewards: [value, value, value], estimator });
        expect(advantages.every((advantage) => advantage === 0)).toBe(true);
      }
    },
  );

  it("should give [0] for a one-member GRPO Group instead of NaN, and reject it for RLOO", () => {
    expect(normalizeGroupRewards({ rewards: [0.7] })).toEqual([0]);
    expect(() => normalizeGroupRewards({ rewards: [0.7], estimator: "rloo" })).toThrow(
      "rloo needs at least 2 samples per Group",
    );
  });

  it("should reject an empty Group and non-finite rewards", () => {
    expect(() => normalizeGroupRewards({ rewards: [] })).toThrow("cannot normalise an empty Group");
    expect(() => normalizeGroupRewards({ rewards: [1, Number.NaN] })).toThrow(
      "rewards[1] is not a finite number",
    );
  });

  it("should keep invariants on random Groups: finite, zero-sum, shift-invariant", () => {
    const reward = fc.double({ min: -100, max: 100, noNaN: true });
    fc.assert(
      fc.property(
        fc.array(reward, { minLength: 2, maxLength: 16 }),
        fc.constantFrom("grpo", "rloo", "reinforce_plus_plus_baseline" as const),
        fc.double({ min: -10, max: 10, noNaN: true }),
        (rewards, estimator, shift) => {
          const advantages = normalizeGroupRewards({ rewards, estimator });
          expect(advantages.every(Number.isFinite)).toBe(true);
          const scale = Math.max(1, ...rewards.map(Math.abs));
          const total = advantages.reduce((a, b) => a + b, 0);
          // GRPO's division can blow tiny spreads up to 1/epsilon; compare sums relative to that.
          expect(Math.abs(total)).toBeLessThan(
            1e-6 * scale * (estimator === "grpo" ? 1e6 : 1) * rewards.length,
          );
          const shifted = normalizeGroupRewards({ rewards: rewards.map((r) => r + shift), estimator });
          for (const [i, advantage] of advantages.entries()) {
            expect(shifted[i]).toBeCloseTo(advantage, estimator === "grpo" ? 0 : 6);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
