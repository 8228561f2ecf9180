import { describe, expect, it } from "vitest";
import { ContinuationStore } from "../src/continuation-store";

describe("ContinuationStore", () => {
  it("should keep one plan per aborted request when two share a key, taken first in, first out", () => {
    const store = new ContinuationStore();
    // Two sessions of one Group: same prompt [1, 2], same first emitted token 7, different remaining plans.
    store.keep([1, 2], [7], [8, 9]);
    store.keep([1, 2], [7], [5]);
    expect(store.size).toBe(2);
    expect(store.take([1, 2, 7])).toEqual([8, 9]);
    expect(store.take([1, 2, 7])).toEqual([5]);
    expect(store.take([1, 2, 7])).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it("should match the key exactly and evict the oldest plan past its capacity", () => {
    const store = new ContinuationStore({ capacity: 2 });
    store.keep([1], [2], [3]);
    store.keep([4], [5], [6]);
    store.keep([7], [8], [9]);
    expect(store.take([1, 2])).toBeUndefined();
    expect(store.take([4])).toBeUndefined();
    expect(store.take([4, 5])).toEqual([6]);
    expect(store.take([7, 8])).toEqual([9]);
  });

  it("should bound the ids kept over all plans", () => {
    const store = new ContinuationStore({ capacityTokens: 6 });
    store.keep([1, 2], [3], [4]);
    store.keep([5, 6], [7], [8]);
    expect(store.size).toBe(1);
    expect(store.take([5, 6, 7])).toEqual([8]);
    store.keep([1, 2, 3, 4, 5], [6], [7]);
    expect(store.size).toBe(0);
  });
});
