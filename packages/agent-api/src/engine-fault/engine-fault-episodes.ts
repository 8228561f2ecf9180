import type { EngineFaultLogger } from "./engine-fault-hold";

/** What the first held turn of an episode reports (the "generation stopped" WARN line). */
export interface EngineFaultInfo {
  kind: string;
  worker?: string;
  sessionId?: string;
  message: string;
}

/**
 * Outage episodes of engine failures, from the first held turn to the last one going on: one WARN line
 * at each edge (the resume line says how many turns were held and how many ran out of their budget), the
 * outage count, and listeners told `true` / `false` at the edges. One per process that logs them: the
 * one-process gateway's `EngineFaultHold`, or a sharded gateway's controller summing its shards.
 */
export class EngineFaultEpisodes {
  readonly #logger: EngineFaultLogger | undefined;
  readonly #listeners = new Set<(held: boolean) => void>();
  #held = 0;
  #episode: { startedAt: number; held: number; exhausted: number; kinds: Set<string> } | undefined;
  /** Episodes so far (one per "generation stopped" line). */
  outages = 0;

  constructor(logger: EngineFaultLogger | undefined) {
    this.#logger = logger;
  }

  /** Turns held now. */
  get held(): number {
    return this.#held;
  }

  onChange(listener: (held: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A turn is held (the first one of an episode starts it). */
  enter(info: EngineFaultInfo): void {
    this.#held++;
    if (this.#episode === undefined) {
      this.#episode = { startedAt: performance.now(), held: 0, exhausted: 0, kinds: new Set() };
      this.outages++;
      this.#logger?.warn(
        {
          reason: info.kind,
          worker: info.worker ?? "(engine)",
          session: info.sessionId,
          err: info.message,
        },
        "AGENTIC engine failure: generation stopped; in-flight turns are held (agents' requests stay open, budgets paused) until the engine answers again",
      );
      this.#emit(true);
    }
    this.#episode.held++;
    this.#episode.kinds.add(info.kind);
  }

  /** A held turn ran out of its budget (counted in the episode's resume line). */
  exhausted(): void {
    if (this.#episode !== undefined) this.#episode.exhausted++;
  }

  /** A held turn goes on or ends (the last one ends the episode). */
  leave(): void {
    this.#held = Math.max(0, this.#held - 1);
    if (this.#held > 0 || this.#episode === undefined) return;
    const episode = this.#episode;
    this.#episode = undefined;
    const outage_s = Number(((performance.now() - episode.startedAt) / 1000).toFixed(1));
    this.#logger?.warn(
      {
        held_turns: episode.held,
        failed_turns: episode.exhausted,
        outage_s,
        reasons: [...episode.kinds].join(","),
      },
      `AGENTIC engine generation resumed after ${outage_s} s: ${episode.held} held turns continue${episode.exhausted > 0 ? ` (${episode.exhausted} ran out of --engine-fault-hold-timeout / --engine-fault-max-attempts)` : ""}`,
    );
    this.#emit(false);
  }

  #emit(held: boolean): void {
    for (const listener of this.#listeners) {
      try {
        listener(held);
      } catch {
        // A listener's failure must not break the hold.
      }
    }
  }
}
