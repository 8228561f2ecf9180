/**
 * The scripted plans of aborted requests, kept so that a resubmitted partial rollout continues where the
 * aborted request stopped.
 *
 * When a request is aborted after emitting `k` tokens of its plan, the stand-in keeps the rest of the
 * plan under the key `inputIds ++ outputIds` (the aborted request's prompt followed by its `k` emitted
 * ids). A later `/generate` whose `input_ids` equal that key exactly takes the plan (once: the entry is
 * removed) instead of asking the policy again, so the concatenation of both outputs is token-identical
 * to one uninterrupted request. Several aborted requests may share a key (the sessions of one Group get
 * the same prompt and, with a deterministic policy, emit the same first tokens): each keeps its own plan
 * and the same key is taken first in, first out, so every resubmission continues one of them. This is the stand-in's deterministic equivalent of a model continuing its
 * own text from `prompt + partial output` (SGLang's partial-rollout resubmission).
 *
 * Memory is bounded: at most `capacity` plans (the oldest stored plan is evicted first) and at
 * most `capacityTokens` ids over all keys and plans.
 */
export class ContinuationStore {
  readonly #capacity: number;
  readonly #capacityTokens: number;
  readonly #plans = new Map<string, { key: readonly number[]; remaining: number[] }[]>();
  #count = 0;
  #tokens = 0;
  /** Every entry with its bucket hash, oldest first (a Map keeps insertion order). */
  readonly #order = new Map<{ key: readonly number[]; remaining: number[] }, string>();

  /**
   * @param options.capacity - most plans kept (0 disables continuation). @default 1024
   * @param options.capacityTokens - most ids kept over all entries (key + plan). @default 4000000
   */
  constructor({
    capacity = 1024,
    capacityTokens = 4_000_000,
  }: { capacity?: number; capacityTokens?: number } = {}) {
    this.#capacity = capacity;
    this.#capacityTokens = capacityTokens;
  }

  /** Plans kept now. */
  get size(): number {
    return this.#count;
  }

  /** Keeps `remaining` (the plan ids not yet emitted) under `inputIds ++ emittedIds`. */
  keep(inputIds: readonly number[], emittedIds: readonly number[], remaining: readonly number[]): void {
    if (this.#capacity <= 0 || remaining.length === 0) return;
    const key = inputIds.concat(emittedIds);
    const weight = key.length + remaining.length;
    if (weight > this.#capacityTokens) return;
    const entry = { key, remaining: [...remaining] };
    const hash = hashIds(key);
    const bucket = this.#plans.get(hash);
    if (bucket) bucket.push(entry);
    else this.#plans.set(hash, [entry]);
    this.#order.set(entry, hash);
    this.#count++;
    this.#tokens += weight;
    while (this.#count > this.#capacity || this.#tokens > this.#capacityTokens) {
      const [oldest, oldestHash] = this.#order.entries().next().value!;
      this.#delete(oldest, oldestHash);
    }
  }

  /** Removes and returns the plan kept under exactly `inputIds`, if any. */
  take(inputIds: readonly number[]): number[] | undefined {
    const entry = this.#find(inputIds);
    if (!entry) return undefined;
    this.#delete(entry.entry, entry.hash);
    return entry.entry.remaining;
  }

  /** Drops every plan. */
  clear(): void {
    this.#plans.clear();
    this.#order.clear();
    this.#count = 0;
    this.#tokens = 0;
  }

  #find(ids: readonly number[]) {
    const hash = hashIds(ids);
    const entry = this.#plans.get(hash)?.find((candidate) => sameIds(candidate.key, ids));
    return entry ? { entry, hash } : undefined;
  }

  #delete(entry: { key: readonly number[]; remaining: number[] }, hash: string): void {
    const bucket = this.#plans.get(hash);
    if (!bucket) return;
    const index = bucket.indexOf(entry);
    if (index < 0) return;
    bucket.splice(index, 1);
    if (bucket.length === 0) this.#plans.delete(hash);
    this.#order.delete(entry);
    this.#count--;
    this.#tokens -= entry.key.length + entry.remaining.length;
  }
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/** FNV-1a over the ids, with the length: a bucket key (entries are compared in full). */
function hashIds(ids: readonly number[]): string {
  let h = 0x811c9dc5;
  for (let index = 0; index < ids.length; index++) h = Math.imul(h ^ ids[index]!, 0x01000193);
  return `${ids.length}:${(h >>> 0).toString(36)}`;
}
