import { hasMarker } from "@relax/chat";
import type { FinishReason, GenerateResult, ServerHealth } from "@relax/sglang";
import { SglangTimeoutError } from "@relax/sglang";
import { EngineFaultEpisodes, type EngineFaultInfo } from "./engine-fault-episodes";

/**
 * Bounds of {@link EngineFaultHold} (`--engine-fault-hold-timeout`, `--engine-fault-max-attempts`,
 * `--engine-progress-timeout`, and the health-check backoff of `--engine-wait-initial` /
 * `--engine-wait-max`), in milliseconds.
 */
export interface EngineFaultBudget {
  /** Longest time one turn may be held for engine failures, summed over its holds. @default 600000 */
  holdTimeoutMs: number;
  /** Most engine failures one turn may take; the next one ends the turn with its error. @default 10 */
  maxAttempts: number;
  /**
   * An engine call with no answer this long gets its worker's `/health_generate` checked (bounded by the
   * same time); a worker that does not answer healthy is hung: the call is aborted by rid and the turn
   * held. 0 turns the check off. @default 30000
   */
  progressTimeoutMs: number;
  /** First wait between health checks while turns are held (doubles per wait). @default 500 */
  waitInitialMs: number;
  /** Longest wait between health checks. @default 15000 */
  waitMaxMs: number;
}

/** Defaults of {@link EngineFaultBudget}. */
export const DEFAULT_ENGINE_FAULT_BUDGET: EngineFaultBudget = {
  holdTimeoutMs: 600_000,
  maxAttempts: 10,
  progressTimeoutMs: 30_000,
  waitInitialMs: 500,
  waitMaxMs: 15_000,
};

/** Counters of an {@link EngineFaultHold}, for the run summary and `relax serve` status. */
export interface EngineFaultCounters {
  /** Times generation stopped for an engine failure (one per WARN "generation stopped" line). */
  outages: number;
  /** Holds of a turn (a turn held twice counts twice). */
  heldTurns: number;
  /** Holds that ended with the turn continuing on a healthy engine. */
  resumedTurns: number;
  /** Turns ended because the budget ran out (time or attempts). */
  exhaustedTurns: number;
  /** Engine calls aborted by the progress check (a hung worker). */
  stalledCalls: number;
}

/**
 * What the run reads of its engine-failure handling: an {@link EngineFaultHold} in a one-process gateway,
 * the shards' sum (`EngineFaultTotals`) with `--gateway-shards`.
 */
export interface EngineFaultView {
  /** Turns held now. */
  readonly held: number;
  /** Live counters (the same object throughout the run). */
  readonly counters: EngineFaultCounters;
  /** Calls `listener(held)` when the first turn is held and when the last one goes on. */
  onChange(listener: (held: boolean) => void): () => void;
}

/** The live counts of a hold: turns held now and the counters. */
export interface EngineFaultSnapshot {
  held: number;
  counters: EngineFaultCounters;
}

/** What failed, as {@link classifyEngineFault} reads it. */
export type EngineFaultKind = "engine_abort" | "connection" | "timeout" | "server_error" | "stalled";

/** The part of the SGLang client the hold uses. */
export interface EngineFaultEngine {
  health(options?: { generate?: boolean }): Promise<ServerHealth[]>;
  abort(rid: string): Promise<unknown>;
  inFlight(): { rid: string; url: string }[];
}

/** The log lines of the hold (a pino logger fits). */
export interface EngineFaultLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Which engine failure an engine call's outcome is, or `undefined` when it is not one (a result that
 * finished, a request error, an abort Relax asked for). An abort Relax did not ask for is one unless the
 * engine gave it a 4xx status code (a request it refused).
 */
export function classifyEngineFault(outcome: {
  error?: unknown;
  finishReason?: FinishReason;
}): EngineFaultKind | undefined {
  const { error, finishReason } = outcome;
  if (finishReason !== undefined) {
    if (finishReason.type !== "abort") return undefined;
    const status = finishReason.statusCode;
    return status !== undefined && status >= 400 && status < 500 ? undefined : "engine_abort";
  }
  if (hasMarker(error, "relax.error.EngineStalledCall")) return "stalled";
  if (hasMarker(error, "relax.error.SglangConnectionError")) return "connection";
  if (hasMarker(error, "relax.error.SglangTimeoutError")) return "timeout";
  if (hasMarker(error, "relax.error.SglangApiError")) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === "number" && (status >= 500 || status === 429)) return "server_error";
  }
  return undefined;
}

/** One turn's engine-failure history (kept by `generateWithContinuation`). */
export interface EngineFaultTurn {
  /** Failures so far, this one included. */
  attempts: number;
  /** Milliseconds held so far. */
  heldMs: number;
}

/**
 * Engine failures of in-flight turns handled as partial-rollout pauses (see docs/contract.md#engine-failures):
 * a turn whose engine call failed — an abort Relax did not ask for, a reset, a 5xx, a timeout, a hung
 * worker — is held (its agent's HTTP request stays open, the Groups' active-time budgets pause through
 * {@link onChange}) until its worker answers `/health_generate` again, then continues from its kept
 * partial output. One WARN line when generation stops, one when the last held turn goes on (with how many
 * were held), counters for the summary and status. A turn past its budget ({@link EngineFaultBudget}) gets
 * the error it would have got without the hold.
 */
export class EngineFaultHold {
  readonly #engine: EngineFaultEngine;
  readonly #logger: EngineFaultLogger | undefined;
  readonly budget: EngineFaultBudget;
  readonly counters: EngineFaultCounters = {
    outages: 0,
    heldTurns: 0,
    resumedTurns: 0,
    exhaustedTurns: 0,
    stalledCalls: 0,
  };
  readonly #episodes: EngineFaultEpisodes | undefined;
  readonly #onUpdate: ((snapshot: EngineFaultSnapshot, fault?: EngineFaultInfo) => void) | undefined;
  readonly #local = new EngineFaultEpisodes(undefined);
  /** Shared health-check loops, one per worker url ("" = every server). */
  readonly #checks = new Map<string, Promise<void>>();
  readonly #closed = new AbortController();
  readonly #recentChecks = new Map<string, { at: number; healthy: Promise<boolean> }>();

  constructor(options: {
    engine: EngineFaultEngine;
    /** Receives the stalled-call WARN lines, and the episode lines unless `logEpisodes` is false. */
    logger?: EngineFaultLogger;
    budget?: Partial<EngineFaultBudget>;
    /**
     * Whether this hold logs and counts outage episodes itself. A gateway shard does not: its controller
     * sums every shard's {@link onUpdate} snapshots (`EngineFaultTotals`). @default true
     */
    logEpisodes?: boolean;
    /**
     * Called with the live counts after every change, and the failure when a turn was just held (a shard
     * forwards them to its controller).
     */
    onUpdate?: (snapshot: EngineFaultSnapshot, fault?: EngineFaultInfo) => void;
  }) {
    this.#engine = options.engine;
    this.#logger = options.logger;
    this.budget = { ...DEFAULT_ENGINE_FAULT_BUDGET, ...options.budget };
    this.#episodes = options.logEpisodes === false ? undefined : new EngineFaultEpisodes(options.logger);
    this.#onUpdate = options.onUpdate;
  }

  /** Turns held now. */
  get held(): number {
    return this.#local.held;
  }

  /** Calls `listener(held)` when the first turn is held and when the last one goes on. */
  onChange(listener: (held: boolean) => void): () => void {
    return this.#local.onChange(listener);
  }

  /** The live counts (what {@link onUpdate} receives). */
  snapshot(): EngineFaultSnapshot {
    return { held: this.held, counters: { ...this.counters } };
  }

  /**
   * Whether a turn whose failures are `turn` may be held once more (attempts and time left). When not, the
   * turn is counted as exhausted and the caller ends it with the failure's own error.
   */
  admits(turn: EngineFaultTurn): boolean {
    if (turn.attempts <= this.budget.maxAttempts && turn.heldMs < this.budget.holdTimeoutMs) return true;
    this.#exhausted();
    return false;
  }

  /**
   * Holds a turn after an engine failure until its worker (`worker`, else every server; a router counts
   * for its workers) answers `/health_generate`, checked with the backoff of the budget. Resolves with the
   * milliseconds held and `continued: false` when the turn's time budget ran out first (counted as
   * exhausted; the caller then ends the turn with the failure's own error).
   * @throws the signal's reason when the request aborts (client disconnect, session closed).
   */
  async hold(options: {
    turn: EngineFaultTurn;
    kind: EngineFaultKind;
    worker?: string;
    sessionId?: string;
    signal: AbortSignal;
    message: string;
  }): Promise<{ heldMs: number; continued: boolean }> {
    const { turn, signal } = options;
    const started = performance.now();
    this.#enter({
      kind: options.kind,
      message: options.message,
      ...(options.worker !== undefined ? { worker: options.worker } : {}),
      ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
    });
    let continued = false;
    try {
      const left = this.budget.holdTimeoutMs - turn.heldMs;
      continued = await this.#waitHealthy(options.worker ?? "", left, signal);
      signal.throwIfAborted();
      if (continued) this.counters.resumedTurns++;
      else this.#exhausted();
      return { heldMs: performance.now() - started, continued };
    } finally {
      this.#leave();
    }
  }

  /**
   * Runs one engine call under the progress check: after `progressTimeoutMs` without an answer, the call's
   * worker is checked with `/health_generate` (bounded by the same time); a healthy worker re-arms the
   * check, one that does not answer makes this reject with an `EngineStalledCall` error (an
   * `SglangTimeoutError`) after sending `/abort_request` for the rid. The abandoned call's own outcome is
   * ignored.
   */
  watch(call: Promise<GenerateResult>, { rid }: { rid: string }): Promise<GenerateResult> {
    const limit = this.budget.progressTimeoutMs;
    if (!(limit > 0)) return call;
    const worker = this.#engine.inFlight().find((request) => request.rid === rid)?.url;
    return new Promise<GenerateResult>((resolve, reject) => {
      let settled = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const started = performance.now();
      const settle = (done: () => void) => {
        if (settled) return;
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        done();
      };
      const check = async () => {
        const healthy = await this.#sharedCheck(worker, limit);
        if (settled) return;
        if (healthy) {
          timer = setTimeout(check, limit);
          timer.unref?.();
          return;
        }
        this.counters.stalledCalls++;
        this.#update();
        const waitedMs = Math.round(performance.now() - started);
        this.#logger?.warn(
          { worker: worker ?? "(unknown)", rid, waited_s: Math.round(waitedMs / 1000) },
          `AGENTIC engine call made no progress for ${Math.round(waitedMs / 1000)} s and its worker does not answer /health_generate: aborted by rid, the turn is held`,
        );
        this.#engine.abort(rid).catch(() => undefined);
        settle(() => reject(new EngineStalledCall({ url: worker ?? "(engine)", timeoutMs: waitedMs, rid })));
      };
      timer = setTimeout(check, limit);
      timer.unref?.();
      call.then(
        (result) => settle(() => resolve(result)),
        (error: unknown) => settle(() => reject(error)),
      );
    });
  }

  /** Stops the health-check loops (the run is closing); held turns then see their own signal. */
  close(): void {
    this.#closed.abort();
  }

  #enter(info: EngineFaultInfo): void {
    this.counters.heldTurns++;
    this.#local.enter(info);
    this.#episodes?.enter(info);
    if (this.#episodes !== undefined) this.counters.outages = this.#episodes.outages;
    this.#update(info);
  }

  #leave(): void {
    this.#local.leave();
    this.#episodes?.leave();
    this.#update();
  }

  #exhausted(): void {
    this.counters.exhaustedTurns++;
    this.#episodes?.exhausted();
    this.#update();
  }

  #update(fault?: EngineFaultInfo): void {
    this.#onUpdate?.(this.snapshot(), fault);
  }

  /** Resolves `true` once `worker` is healthy, `false` after `leftMs`; rejects when `signal` aborts. */
  async #waitHealthy(worker: string, leftMs: number, signal: AbortSignal): Promise<boolean> {
    if (leftMs <= 0) return false;
    let check = this.#checks.get(worker);
    if (check === undefined) {
      check = this.#loop(worker).finally(() => this.#checks.delete(worker));
      this.#checks.set(worker, check);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    try {
      return await Promise.race([
        check.then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), leftMs);
          timer.unref?.();
        }),
        new Promise<boolean>((_, reject) => {
          onAbort = () => reject(signal.reason);
          if (signal.aborted) onAbort();
          else signal.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
    }
  }

  async #loop(worker: string): Promise<void> {
    let delay = this.budget.waitInitialMs;
    const closed = this.#closed.signal;
    for (;;) {
      if (await this.#workerAnswers(worker === "" ? undefined : worker, this.budget.waitMaxMs)) return;
      if (closed.aborted) return new Promise<void>(() => undefined);
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          closed.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, delay);
        timer.unref?.();
        closed.addEventListener("abort", done, { once: true });
      });
      delay = Math.min(delay * 2, this.budget.waitMaxMs);
    }
  }

  /**
   * The progress check of many slow calls shares one `/health_generate` round: a round started less than
   * half a period ago answers for every call checked since, so the engine sees about two checks per period
   * however many calls are slow.
   */
  #sharedCheck(worker: string | undefined, limitMs: number): Promise<boolean> {
    const key = worker ?? "";
    const recent = this.#recentChecks.get(key);
    if (recent !== undefined && performance.now() - recent.at < limitMs / 2) return recent.healthy;
    const healthy = this.#workerAnswers(worker, limitMs);
    this.#recentChecks.set(key, { at: performance.now(), healthy });
    return healthy;
  }

  /** Whether `worker` (every server when `undefined`) answers `/health_generate` within `limitMs`. */
  async #workerAnswers(worker: string | undefined, limitMs: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const servers = await Promise.race([
      this.#engine.health({ generate: true }).catch(() => [] as ServerHealth[]),
      new Promise<ServerHealth[]>((resolve) => {
        timer = setTimeout(() => resolve([]), limitMs);
        timer.unref?.();
      }),
    ]).finally(() => clearTimeout(timer));
    if (servers.length === 0) return false;
    const relevant =
      worker === undefined
        ? servers
        : servers.filter((server) => server.url === worker || server.role === "router");
    return (relevant.length > 0 ? relevant : servers).every((server) => server.ok);
  }
}

const stalledCallSymbol = Symbol.for("relax.error.EngineStalledCall");

/**
 * An engine call that made no progress while its worker did not answer `/health_generate`: an
 * `SglangTimeoutError` (same name, so the agent gets what a timed-out call gets: 503 `backend_unavailable`)
 * with its own marker, so the hold can tell it from the client's own time limit.
 */
export class EngineStalledCall extends SglangTimeoutError {
  readonly [stalledCallSymbol] = true;

  /** True for any `EngineStalledCall`, from any copy of this package (its own marker, not the timeout's). */
  static override isInstance(error: unknown): error is EngineStalledCall {
    return hasMarker(error, "relax.error.EngineStalledCall");
  }
}
