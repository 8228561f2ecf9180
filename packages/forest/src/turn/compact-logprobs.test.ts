import { describe, expect, it } from "vitest";
import { ForestInputError } from "../errors/forest-input-error";
import { compactLogprobs, toLogprobArray } from "./validate-response";

describe("toLogprobArray", () => {
  it("should store float32 values (as SGLang computes them) in 4 bytes, bit-identical", () => {
    // Doubles that are exactly float32 values, as SGLang's float32 logprobs arrive in JSON.
    const given = [-0.0021, -0.31, -12.75, 0, -1e-7].map(Math.fround);
    const stored = toLogprobArray(given, 5, "logprobs");
    expect(stored).toBeInstanceOf(Float32Array);
    expect(stored.byteLength).toBe(20);
    expect(Array.from(stored)).toEqual(given);
    expect(Array.from(stored).map((v, i) => Object.is(v, given[i]))).toEqual([true, true, true, true, true]);
  });

  it("should keep 8 bytes when one value is not a float32 value, so no digit is lost", () => {
    const given = [Math.fround(-0.5), -0.1, -0.25];
    const stored = toLogprobArray(given, 3, "logprobs");
    expect(stored).toBeInstanceOf(Float64Array);
    expect(stored.byteLength).toBe(24);
    expect(Array.from(stored)).toEqual([-0.5, -0.1, -0.25]);
    expect(stored[1]).toBe(-0.1);
    expect(Math.fround(-0.1)).not.toBe(-0.1);
  });

  it("should turn -0 into 0 and name a non-finite entry", () => {
    expect(Object.is(toLogprobArray([-0], 1, "lp")[0], 0)).toBe(true);
    expect(() => toLogprobArray([-1, Number.NaN], 2, "lp")).toThrow(ForestInputError);
    expect(() => toLogprobArray([-1, Number.NaN], 2, "lp")).toThrow(
      /lp\[1\]: must be a finite number, got NaN/,
    );
  });
});

describe("compactLogprobs", () => {
  it("should return the same array when it cannot be narrowed, and an empty Float32Array for none", () => {
    const wide = Float64Array.from([-0.1]);
    expect(compactLogprobs(wide)).toBe(wide);
    expect(compactLogprobs(new Float64Array(0))).toEqual(new Float32Array(0));
  });
});
