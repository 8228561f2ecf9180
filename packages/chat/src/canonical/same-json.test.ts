import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sameJson } from "./same-json";
import { stableStringify } from "./stable-stringify";
import { JsonNumberLiteral } from "./strict-json";

describe("sameJson", () => {
  it("is true only when stableStringify would give the same text (property)", () => {
    const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(NaN, Number.POSITIVE_INFINITY, -0));
    fc.assert(
      fc.property(value, value, (a, b) => {
        let known: string;
        try {
          known = stableStringify(a);
        } catch {
          return;
        }
        if (sameJson(a, b)) expect(stableStringify(b)).toBe(known);
        // A copy is always recognised.
        expect(sameJson(a, structuredClone(a))).toBe(true);
      }),
      { numRuns: 500, seed: 16 },
    );
  });

  it("tells key order apart from content, and number literals from objects", () => {
    expect(sameJson({ a: 1, b: [1, { c: "x" }] }, { b: [1, { c: "x" }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameJson({ a: [1] }, { a: { 0: 1 } })).toBe(false);
    expect(sameJson(new JsonNumberLiteral("1.0"), { literal: "1.0" })).toBe(false);
    expect(sameJson(new JsonNumberLiteral("1.0"), new JsonNumberLiteral("1.0"))).toBe(true);
    expect(sameJson({ a: 1 }, new Map([["a", 1]]))).toBe(false);
    expect(sameJson([null], [undefined])).toBe(false);
  });
});
