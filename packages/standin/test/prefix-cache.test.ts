import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PrefixCache } from "../src/prefix-cache";

/** The reference: longest common prefix with any stored sequence. */
function naiveMatch(stored: number[][], ids: number[]): number {
  let best = 0;
  for (const sequence of stored) {
    let length = 0;
    while (length < sequence.length && length < ids.length && sequence[length] === ids[length]) length++;
    best = Math.max(best, length);
  }
  return best;
}

const sequence = fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 12 });

describe("PrefixCache", () => {
  it("should match the longest stored prefix, like a brute-force search", () => {
    fc.assert(
      fc.property(
        fc.array(sequence, { maxLength: 8 }),
        fc.array(sequence, { maxLength: 8 }),
        (inserts, queries) => {
          const cache = new PrefixCache();
          for (const ids of inserts) cache.insert(ids);
          for (const ids of [...queries, ...inserts]) expect(cache.match(ids)).toBe(naiveMatch(inserts, ids));
        },
      ),
    );
  });

  it("should count stored tokens once per distinct suffix and drop everything past capacity", () => {
    const cache = new PrefixCache({ capacityTokens: 10 });
    cache.insert([1, 2, 3, 4]);
    cache.insert([1, 2, 9]);
    cache.insert([1, 2]);
    expect(cache.size).toBe(5);
    expect(cache.match([1, 2, 3, 7])).toBe(3);
    cache.insert([5, 5, 5, 5, 5, 5]);
    expect(cache.size).toBe(6);
    expect(cache.match([1, 2, 3])).toBe(0);
    cache.clear();
    expect(cache.match([5, 5])).toBe(0);
  });
});
