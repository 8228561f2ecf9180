import { createHash } from "node:crypto";

/**
 * Picks one of `count` shards for `key` by rendezvous (highest-random-weight) hashing: each shard scores
 * `sha256(key + ":" + index)` (first 6 bytes as an integer) and the highest score wins. The choice is
 * stable for a key, spreads keys evenly, and when the shard count changes only the keys of the added or
 * removed shards move (the property consistent hashing is used for). Deterministic across processes
 * and machines.
 *
 * @throws RangeError when `count` is not a positive integer.
 */
export function rendezvousShard(key: string, count: number): number {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`shard count must be ≥ 1, got ${count}`);
  if (count === 1) return 0;
  let best = 0;
  let bestScore = -1;
  for (let index = 0; index < count; index++) {
    const score = createHash("sha256").update(`${key}:${index}`).digest().readUIntBE(0, 6);
    if (score > bestScore) {
      best = index;
      bestScore = score;
    }
  }
  return best;
}
