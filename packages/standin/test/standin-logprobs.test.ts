import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeStandinLogprobs } from "../src/testing/index";

const ids = fc.array(fc.integer({ min: 0, max: 151_000 }), { minLength: 1, maxLength: 30 });

describe("computeStandinLogprobs", () => {
  it("should be deterministic, ≤ 0 and above -9", () => {
    fc.assert(
      fc.property(fc.integer(), ids, ids, (seed, inputIds, outputIds) => {
        const first = computeStandinLogprobs({ seed, inputIds, outputIds });
        expect(computeStandinLogprobs({ seed, inputIds, outputIds })).toEqual(first);
        for (const value of first) {
          expect(value).toBeLessThanOrEqual(0);
          expect(value).toBeGreaterThan(-9);
          expect(Object.is(value, -0)).toBe(false);
        }
      }),
    );
  });

  it("should depend only on the context, so a resumed continuation matches one uninterrupted request", () => {
    fc.assert(
      fc.property(fc.integer(), ids, ids, fc.nat(), (seed, inputIds, outputIds, cut) => {
        const split = cut % (outputIds.length + 1);
        const whole = computeStandinLogprobs({ seed, inputIds, outputIds });
        const head = computeStandinLogprobs({ seed, inputIds, outputIds: outputIds.slice(0, split) });
        const tail = computeStandinLogprobs({
          seed,
          inputIds: [...inputIds, ...outputIds.slice(0, split)],
          outputIds: outputIds.slice(split),
        });
        expect([...head, ...tail]).toEqual(whole);
      }),
    );
  });

  it("should change with the seed and the weight version", () => {
    const base = { inputIds: [1, 2, 3], outputIds: [4, 5, 6, 7, 8] };
    const reference = computeStandinLogprobs({ seed: 1, ...base });
    expect(computeStandinLogprobs({ seed: 2, ...base })).not.toEqual(reference);
    expect(computeStandinLogprobs({ seed: 1, weightVersion: "v2", ...base })).not.toEqual(reference);
  });
});
