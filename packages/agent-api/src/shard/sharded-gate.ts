import { GatePauseCancelledError } from "../errors/gate-pause-cancelled-error";
import { GatePauseTimeoutError } from "../errors/gate-pause-timeout-error";
import {
  type GateChange,
  type GateControl,
  type GateCounts,
  type GatePauseResult,
  type GateResumeResult,
  type GenerationGateState,
  notifyGateListeners,
} from "../gate/generation-gate";

/** One shard's pause outcome, as its gate reported it. */
export type ShardPauseOutcome =
  | { kind: "paused"; result: GatePauseResult }
  | { kind: "timeout" | "cancelled" | "other"; message: string; generating: number }
  /** The shard died (or was never up): its sessions are dropped, nothing of it generates. */
  | { kind: "gone" };

/** What {@link ShardedGate} needs from the shard pool. */
export interface ShardGateLink {
  /** The last gate report of every live shard. */
  reports(): Array<{ state: GenerationGateState; counts: GateCounts }>;
  /** Pauses every live shard's gate; one outcome per shard. */
  pauseAll(timeoutMs: number | undefined): Promise<ShardPauseOutcome[]>;
  /** Reopens every live shard's gate (naming the weight version when given). */
  resumeAll(weightVersion: string | undefined): void;
  /** Names the weight version on every live shard. */
  setWeightVersionAll(version: string): void;
}

/**
 * The run's generation gate in a sharded gateway: the same controls as one process's
 * {@link GenerationGate} (`GateControl`), fanned out to every shard's gate (each aborts its own rid
 * prefix on the engine, keeps its partial outputs and holds its requests).
 *
 * - `pause()` closes at once (`pausing`, listeners told, so budgets stop as in one process), asks every
 *   shard to pause and resolves when all are quiescent: `abortedRequests` and `heldRequests` summed,
 *   `quiescentMs` the slowest shard's. A shard that times out rejects the whole pause with
 *   {@link GatePauseTimeoutError} (the gate stays closed; it becomes `paused` when every shard reports
 *   paused). A shard that dies counts as paused (its Groups are dropped).
 * - `resume()` reopens at once and tells every shard; `resumedRequests` is the sum of the shards' last
 *   reported held counts. A pending pause rejects with {@link GatePauseCancelledError}.
 * - `counts()` sums each live shard's last report (shards report after every change, once per tick).
 * - A shard (re)started while the gate is closed starts paused (see `ShardPool`).
 */
export class ShardedGate implements GateControl {
  readonly #link: ShardGateLink;
  #state: GenerationGateState = "open";
  #weightVersion: string | undefined;
  readonly #listeners = new Set<(change: GateChange) => void>();
  #pending: { promise: Promise<GatePauseResult>; reject: (error: unknown) => void } | undefined;

  constructor(link: ShardGateLink, options: { weightVersion?: string } = {}) {
    this.#link = link;
    this.#weightVersion = options.weightVersion;
  }

  get state(): GenerationGateState {
    return this.#state;
  }

  get weightVersion(): string | undefined {
    return this.#weightVersion;
  }

  setWeightVersion(version: string): void {
    this.#weightVersion = version;
    this.#link.setWeightVersionAll(version);
    this.#emit();
  }

  counts(): GateCounts {
    const total: GateCounts = { generating: 0, held: 0, abortedPartials: 0, bypassing: 0 };
    for (const { counts } of this.#link.reports()) {
      total.generating += counts.generating;
      total.held += counts.held;
      total.abortedPartials += counts.abortedPartials;
      total.bypassing += counts.bypassing;
    }
    return total;
  }

  pause(options: { timeoutMs?: number } = {}): Promise<GatePauseResult> {
    if (this.#state === "paused") {
      return Promise.resolve({ abortedRequests: 0, heldRequests: this.counts().held, quiescentMs: 0 });
    }
    if (this.#pending !== undefined) return this.#pending.promise;
    const started = performance.now();
    this.#state = "pausing";
    let reject!: (error: unknown) => void;
    let cancelled = false;
    const promise = new Promise<GatePauseResult>((resolve, rejectPromise) => {
      reject = (error) => {
        cancelled = true;
        rejectPromise(error);
      };
      this.#link.pauseAll(options.timeoutMs).then(
        (outcomes) => {
          if (cancelled) return;
          const failed = outcomes.find(
            (outcome): outcome is Extract<ShardPauseOutcome, { message: string }> =>
              outcome.kind !== "paused" && outcome.kind !== "gone",
          );
          if (failed !== undefined) {
            this.#pending = undefined;
            const generating = outcomes.reduce(
              (sum, outcome) => sum + (outcome.kind === "timeout" ? outcome.generating : 0),
              0,
            );
            rejectPromise(
              failed.kind === "timeout"
                ? new GatePauseTimeoutError({ timeoutMs: options.timeoutMs ?? 0, generating })
                : failed.kind === "cancelled"
                  ? new GatePauseCancelledError()
                  : new Error(failed.message),
            );
            this.noteReports();
            return;
          }
          let abortedRequests = 0;
          let heldRequests = 0;
          for (const outcome of outcomes) {
            if (outcome.kind !== "paused") continue;
            abortedRequests += outcome.result.abortedRequests;
            heldRequests += outcome.result.heldRequests;
          }
          this.#pending = undefined;
          this.#state = "paused";
          this.#emit();
          resolve({ abortedRequests, heldRequests, quiescentMs: performance.now() - started });
        },
        (error: unknown) => {
          if (cancelled) return;
          this.#pending = undefined;
          rejectPromise(error);
        },
      );
    });
    // Handled here so that a caller who drops the promise gets no unhandled rejection on cancel.
    promise.catch(() => undefined);
    this.#pending = { promise, reject };
    this.#emit();
    return promise;
  }

  resume(options: { weightVersion?: string } = {}): GateResumeResult {
    if (options.weightVersion !== undefined) this.#weightVersion = options.weightVersion;
    if (this.#state === "open") {
      if (options.weightVersion !== undefined) this.#link.setWeightVersionAll(options.weightVersion);
      return { resumedRequests: 0, weightVersion: this.#weightVersion };
    }
    const resumedRequests = this.counts().held;
    const pending = this.#pending;
    this.#pending = undefined;
    this.#state = "open";
    this.#link.resumeAll(options.weightVersion);
    pending?.reject(new GatePauseCancelledError());
    this.#emit();
    return { resumedRequests, weightVersion: this.#weightVersion };
  }

  onChange(listener: (change: GateChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Called by the pool after a shard's gate report: a gate left `pausing` by a timed-out pause becomes
   * `paused` once every live shard reports paused.
   */
  noteReports(): void {
    if (this.#state !== "pausing" || this.#pending !== undefined) return;
    if (this.#link.reports().every((report) => report.state === "paused")) {
      this.#state = "paused";
      this.#emit();
    }
  }

  #emit(): void {
    notifyGateListeners(this.#listeners, { state: this.#state, weightVersion: this.#weightVersion });
  }
}
