/**
 * Compact storage of a node's token ids. Most ids of a text delta fit in 16 bits (Qwen3's vocabulary
 * has 151,669 ids, ordinary text mostly well under 65,536), so a delta of `n` ids with `e` wider ones
 * (the chat template's special tokens, rarer pieces) is kept as one `Uint16Array` of `n + 4e` entries:
 * the low 16 bits of every id (0 for a wide one), then per wide id its index and its value as two 16-bit
 * halves each. That is `2n + 8e` bytes against `4n`; a delta it does not make smaller by at least
 * {@link PACK_SAVING_BYTES} (short deltas, ids mostly wide) stays an `Int32Array`. Lossless for every
 * int32 value.
 */
export type TokenStore = Int32Array | Uint16Array;

/** Packing must save at least this many bytes (a second typed-array object is never made for less). */
export const PACK_SAVING_BYTES = 64;

/** The store of `ids` (`ids` itself when packing would not save {@link PACK_SAVING_BYTES}). */
export function packTokens(ids: Int32Array): TokenStore {
  const n = ids.length;
  let wide = 0;
  for (let i = 0; i < n; i++) if (ids[i]! >>> 0 > 0xffff) wide++;
  if (4 * n - (2 * n + 8 * wide) < PACK_SAVING_BYTES) return ids;
  const store = new Uint16Array(n + 4 * wide);
  let at = n;
  for (let i = 0; i < n; i++) {
    const id = ids[i]! >>> 0;
    if (id <= 0xffff) {
      store[i] = id;
      continue;
    }
    store[at++] = i & 0xffff;
    store[at++] = i >>> 16;
    store[at++] = id & 0xffff;
    store[at++] = id >>> 16;
  }
  return store;
}

/** Writes the `count` ids of `store` into `out` from `offset` (a typed array: one `set`, then the wide ids). */
export function unpackTokensInto(
  store: TokenStore,
  count: number,
  out: Int32Array | number[],
  offset: number,
): void {
  if (out instanceof Int32Array) {
    out.set(store.length === count ? store : store.subarray(0, count), offset);
  } else {
    for (let i = 0; i < count; i++) out[offset + i] = store[i]!;
  }
  if (store instanceof Int32Array) return;
  for (let at = count; at < store.length; at += 4) {
    out[offset + (store[at]! | (store[at + 1]! << 16))] = store[at + 2]! | (store[at + 3]! << 16) | 0;
  }
}

/** The ids of `store` as an `Int32Array` (`store` itself when it is one; else a fresh copy). */
export function unpackTokens(store: TokenStore, count: number): Int32Array {
  if (store instanceof Int32Array) return store;
  const out = new Int32Array(count);
  unpackTokensInto(store, count, out, 0);
  return out;
}
