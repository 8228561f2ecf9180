import { describe, expect, it } from "vitest";
import { rendezvousShard } from "./rendezvous";

const keys = Array.from({ length: 4000 }, (_, i) => `g${i % 7}-${i}-${(i * 2654435761) % 16777216}`);

describe("rendezvousShard", () => {
  it("should pick the same shard for a key every time, and shard 0 when there is one", () => {
    expect(rendezvousShard("g3-1-0a1b2c", 4)).toBe(rendezvousShard("g3-1-0a1b2c", 4));
    // Fixed values (sha256 of "key:index"): the same choice in every process and on every machine.
    expect(
      ["g0-0-aaaaaa", "g0-1-bbbbbb", "g0-2-cccccc", "g0-3-dddddd", "g1-0-000000", "g1-1-ffffff"].map((key) =>
        rendezvousShard(key, 4),
      ),
    ).toEqual([2, 1, 3, 2, 2, 3]);
    expect(keys.every((key) => rendezvousShard(key, 1) === 0)).toBe(true);
  });

  it("should spread keys evenly (each of 4 shards within 10 % of a quarter of 4,000 keys)", () => {
    const counts = [0, 0, 0, 0];
    for (const key of keys) counts[rendezvousShard(key, 4)]!++;
    for (const count of counts) expect(Math.abs(count - 1000)).toBeLessThan(100);
  });

  it("should move only the keys of an added shard when the count grows (consistent hashing)", () => {
    let moved = 0;
    for (const key of keys) {
      const before = rendezvousShard(key, 4);
      const after = rendezvousShard(key, 5);
      if (after !== before) {
        moved++;
        expect(after).toBe(4);
      }
    }
    // About a fifth of the keys go to the new shard; none move between old shards.
    expect(moved / keys.length).toBeGreaterThan(0.15);
    expect(moved / keys.length).toBeLessThan(0.25);
  });

  it("should send a left-out shard's keys to their next-best shard and move no other key", () => {
    for (const key of keys.slice(0, 1000)) {
      const before = rendezvousShard(key, 4);
      const after = rendezvousShard(key, 4, (index) => index !== 2);
      if (before === 2) expect(after).not.toBe(2);
      else expect(after).toBe(before);
    }
    expect(rendezvousShard("k", 3, () => false)).toBe(-1);
    expect(rendezvousShard("k", 1, () => false)).toBe(-1);
  });

  it("should refuse a shard count that is not a positive integer", () => {
    expect(() => rendezvousShard("k", 0)).toThrow(new RangeError("shard count must be ≥ 1, got 0"));
    expect(() => rendezvousShard("k", 1.5)).toThrow(RangeError);
  });
});
