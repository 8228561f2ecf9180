import { EngineFaultEpisodes, type EngineFaultInfo } from "./engine-fault-episodes";
import type { EngineFaultCounters, EngineFaultLogger, EngineFaultSnapshot } from "./engine-fault-hold";

const ZERO: EngineFaultSnapshot = {
  held: 0,
  counters: { outages: 0, heldTurns: 0, resumedTurns: 0, exhaustedTurns: 0, stalledCalls: 0 },
};

/**
 * A sharded gateway's engine-failure view (docs/contract.md#engine-failures): each shard's
 * `EngineFaultHold` reports its snapshots, and this sums them into one run-wide episode (one WARN line
 * when the first turn anywhere is held, one when the last goes on), live counters for the summary and
 * status (`outages` counts these run-wide episodes; the rest are the shards' sums), and the held edges the
 * Groups' budgets follow.
 */
export class EngineFaultTotals {
  readonly #episodes: EngineFaultEpisodes;
  readonly #shards = new Map<number, EngineFaultSnapshot>();
  /** Live sums (mutated in place, so a reference taken once stays current). */
  readonly counters: EngineFaultCounters = { ...ZERO.counters };

  constructor(logger: EngineFaultLogger | undefined) {
    this.#episodes = new EngineFaultEpisodes(logger);
  }

  /** Turns held now, over every shard. */
  get held(): number {
    return this.#episodes.held;
  }

  /** Calls `listener(held)` when the first turn anywhere is held and when the last one goes on. */
  onChange(listener: (held: boolean) => void): () => void {
    return this.#episodes.onChange(listener);
  }

  /** A shard's latest snapshot; `fault` names the failure when a turn was just held there. */
  update(shard: number, snapshot: EngineFaultSnapshot, fault?: EngineFaultInfo): void {
    const before = this.#shards.get(shard) ?? ZERO;
    this.#shards.set(shard, snapshot);
    for (let i = before.counters.exhaustedTurns; i < snapshot.counters.exhaustedTurns; i++)
      this.#episodes.exhausted();
    for (let i = before.held; i < snapshot.held; i++)
      this.#episodes.enter(fault ?? { kind: "unknown", message: "(reported by a gateway shard)" });
    for (let i = snapshot.held; i < before.held; i++) this.#episodes.leave();
    const sum = { ...ZERO.counters };
    for (const { counters } of this.#shards.values()) {
      sum.heldTurns += counters.heldTurns;
      sum.resumedTurns += counters.resumedTurns;
      sum.exhaustedTurns += counters.exhaustedTurns;
      sum.stalledCalls += counters.stalledCalls;
    }
    sum.outages = this.#episodes.outages;
    Object.assign(this.counters, sum);
  }

  /** A shard process is gone: its held turns are gone with it (its counters stay in the sums). */
  forget(shard: number): void {
    const before = this.#shards.get(shard);
    if (before !== undefined) this.update(shard, { held: 0, counters: before.counters });
  }
}
