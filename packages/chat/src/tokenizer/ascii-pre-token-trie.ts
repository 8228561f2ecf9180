/**
 * A map from ASCII pre-tokens to their ids, keyed by the pre-token's code units where they lie in the
 * text being encoded: a lookup walks one trie edge per character, so a cached pre-token is found without
 * cutting it out of the text as a string and hashing that (a V8 `slice` and a `Map.get`, ≈ 40 % of an
 * encode of known words). Exact by construction: a node is reached only by the exact unit sequence that
 * was inserted on the way to it.
 *
 * Edges live in one open-addressing table keyed by `node × 128 + unit` (units are ASCII, `< 128`), so
 * the trie is a few typed arrays. It holds at most `maxEntries` pre-tokens and `maxNodes` nodes, and is
 * emptied when an insert would pass either (the encoder then fills it again from the library's BPE).
 */
export class AsciiPreTokenTrie {
  readonly #maxEntries: number;
  readonly #maxNodes: number;
  /** Edge keys (`node × 128 + unit`, `-1` = empty slot) and the child each leads to. */
  #keys!: Int32Array;
  #children!: Int32Array;
  #mask!: number;
  #edges!: number;
  /** Per node: `-1` no entry ends here; `≥ 0` the single id; `≤ -2` the id list `#lists[-value - 2]`. */
  #values!: Int32Array;
  #nodes!: number;
  #lists!: (readonly number[])[];
  #entries!: number;

  /**
   * @param maxEntries - most pre-tokens held.
   * @param maxNodes - most trie nodes (at most `2^24`: a key is `node × 128 + unit` in 31 bits); the
   *   default 2^19 bounds the arrays at ≈ 10 MB (32,768 pre-tokens of prose or code take ≈ 200k nodes).
   */
  constructor(maxEntries: number, maxNodes = 1 << 19) {
    if (maxNodes > 1 << 24) throw new RangeError(`maxNodes must be at most 2^24, got ${maxNodes}`);
    this.#maxEntries = maxEntries;
    this.#maxNodes = maxNodes;
    this.clear();
  }

  /** Pre-tokens held. */
  get size(): number {
    return this.#entries;
  }

  /** Empties the trie. */
  clear(): void {
    this.#keys = new Int32Array(1 << 12).fill(-1);
    this.#children = new Int32Array(1 << 12);
    this.#mask = (1 << 12) - 1;
    this.#edges = 0;
    this.#values = new Int32Array(1 << 10).fill(-1);
    this.#nodes = 1;
    this.#lists = [];
    this.#entries = 0;
  }

  /**
   * The ids of the pre-token `units[start..end)`: a number for a single id, the list otherwise, or
   * `undefined` when it is not held.
   *
   * @param units - code units, all `< 128` in `[start, end)`.
   */
  get(units: Uint16Array, start: number, end: number): number | readonly number[] | undefined {
    let node = 0;
    const keys = this.#keys;
    const mask = this.#mask;
    for (let i = start; i < end; i++) {
      const key = (node << 7) | (units[i] as number);
      let slot = Math.imul(key, 0x9e3779b1) >>> 8;
      for (;;) {
        slot &= mask;
        const found = keys[slot] as number;
        if (found === key) break;
        if (found === -1) return undefined;
        slot++;
      }
      node = this.#children[slot] as number;
    }
    const value = this.#values[node] as number;
    if (value >= 0) return value;
    return value === -1 ? undefined : this.#lists[-value - 2];
  }

  /**
   * Holds `ids` for the pre-token `units[start..end)` (non-empty, all units `< 128`); empties the trie
   * first when it is full.
   */
  set(units: Uint16Array, start: number, end: number, ids: number | readonly number[]): void {
    if (this.#entries >= this.#maxEntries || this.#nodes + (end - start) > this.#maxNodes) this.clear();
    let node = 0;
    for (let i = start; i < end; i++) node = this.#childOrAdd(node, units[i] as number);
    const previous = this.#values[node] as number;
    if (previous === -1) this.#entries++;
    if (typeof ids === "number") this.#values[node] = ids;
    else {
      this.#values[node] = -this.#lists.length - 2;
      this.#lists.push(ids);
    }
  }

  #childOrAdd(node: number, unit: number): number {
    const key = (node << 7) | unit;
    let slot = Math.imul(key, 0x9e3779b1) >>> 8;
    for (;;) {
      slot &= this.#mask;
      const found = this.#keys[slot] as number;
      if (found === key) return this.#children[slot] as number;
      if (found === -1) break;
      slot++;
    }
    const child = this.#nodes++;
    if (child >= this.#values.length) {
      const values = new Int32Array(this.#values.length * 2).fill(-1);
      values.set(this.#values);
      this.#values = values;
    }
    this.#keys[slot] = key;
    this.#children[slot] = child;
    if (++this.#edges * 4 > this.#keys.length * 3) this.#grow();
    return child;
  }

  /** Doubles the edge table (kept at most three quarters full). */
  #grow(): void {
    const keys = this.#keys;
    const children = this.#children;
    this.#keys = new Int32Array(keys.length * 2).fill(-1);
    this.#children = new Int32Array(keys.length * 2);
    this.#mask = this.#keys.length - 1;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as number;
      if (key === -1) continue;
      let slot = Math.imul(key, 0x9e3779b1) >>> 8;
      for (;;) {
        slot &= this.#mask;
        if (this.#keys[slot] === -1) break;
        slot++;
      }
      this.#keys[slot] = key;
      this.#children[slot] = children[i] as number;
    }
  }
}
