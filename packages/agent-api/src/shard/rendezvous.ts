import { createHash } from "node:crypto";

/**
 * Picks one of `count` shards for `key` by rendezvous (highest-random-weight) hashing: each shard scores
 * `sha256(key + ":" + index)` (first 6 bytes as an integer) and the highest score wins. The choice is
 * stable for a key, spreads keys evenly, and when the shard count changes only the keys of the added or
 * removed shards move (the property consistent hashing is used for). Deterministic across processes
 * and machines. `usable` leaves shards out (a shard that is down): their keys go to their next-best
 * shard and no other key moves; `-1` when none is usable.
 *
 * @throws RangeError when `count` is not a positive integer.
 */
export function rendezvousShard(
  key: string,
  count: number,
  usable: (index: number) => boolean = () => true,
): number {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`shard count must be ≥ 1, got ${count}`);
  if (count === 1) return usable(0) ? 0 : -1;
  let best = -1;
  let bestScore = -1;
  for (let index = 0; index < count; index++) {
    if (!usable(index)) continue;
    const score = createHash("sha256").update(`${key}:${index}`).digest().readUIntBE(0, 6);
    if (score > bestScore) {
      best = index;
      bestScore = score;
    }
  }
  return best;
}
