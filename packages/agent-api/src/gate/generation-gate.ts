import { randomBytes } from "node:crypto";
import type { AbortOutcome } from "@relax/sglang";
import { GatePauseCancelledError } from "../errors/gate-pause-cancelled-error";
import { GatePauseTimeoutError } from "../errors/gate-pause-timeout-error";

/**
 * Where generation stands: `open` (engine calls may start), `pausing` (closed; aborts sent, waiting for
 * the in-flight engine calls to return), `paused` (closed and nothing generating).
 */
export type GenerationGateState = "open" | "pausing" | "paused";

/** Result of {@link GenerationGate.pause}. */
export interface GatePauseResult {
  /** Engine calls aborted by this pause (0 when the gate was already paused). */
  abortedRequests: number;
  /** Turn requests held open (waiting at the gate, or interrupted and waiting to continue) at quiescence. */
  heldRequests: number;
  /** Milliseconds from the pause call until nothing was generating. */
  quiescentMs: number;
}

/** Result of {@link GenerationGate.resume}. */
export interface GateResumeResult {
  /** Held turn requests released (0 when the gate was open). */
  resumedRequests: number;
  /** The trainer-named weight version now in effect (`undefined` when none was ever named). */
  weightVersion: string | undefined;
}

/** Live counts of a gate, for status endpoints. */
export interface GateCounts {
  /** Engine calls in flight. */
  generating: number;
  /** Turn requests waiting at the closed gate, interrupted ones included. */
  held: number;
  /** Turn requests whose generation a pause aborted, holding a partial output to continue from. */
  abortedPartials: number;
  /**
   * Engine calls that bypass the gate (protected sessions of `--partial-rollout-max-aborted-count`, eval
   * sessions under `--partial-rollout`): they keep generating while the gate is closed and a pause neither
   * aborts nor waits for them.
   */
  bypassing: number;
}

/** What a gate listener is told on every state change. */
export interface GateChange {
  state: GenerationGateState;
  weightVersion: string | undefined;
}

/**
 * The controls of a generation gate that the controller, the budgets and the trainer API use: a
 * {@link GenerationGate} in a one-process gateway, a fan-out over every shard's gate with
 * `--gateway-shards` (`ShardedGate`). Engine calls themselves go through the gate of the process that
 * serves the session.
 */
export interface GateControl {
  /** `open`, `pausing` (closed, calls still returning) or `paused` (closed, nothing generating). */
  readonly state: GenerationGateState;
  /** The trainer-named weight version in effect (`undefined` when none was ever named). */
  readonly weightVersion: string | undefined;
  /** Names the weight version the engine serves, without reopening. */
  setWeightVersion(version: string): void;
  /** Live counts (a sharded gateway's sum of each shard's last report, at most ~50 ms old). */
  counts(): GateCounts;
  /**
   * Closes the gate: aborts every in-flight engine call (partial output kept) and resolves when nothing
   * generates. @throws GatePauseTimeoutError, GatePauseCancelledError as {@link GenerationGate.pause}.
   */
  pause(options?: { timeoutMs?: number }): Promise<GatePauseResult>;
  /** Reopens the gate: held requests continue. See {@link GenerationGate.resume}. */
  resume(options?: { weightVersion?: string }): GateResumeResult;
  /** Calls `listener` on every state or weight-version change; returns the unsubscribe function. */
  onChange(listener: (change: GateChange) => void): () => void;
}

/**
 * Tells every gate listener of a change; a listener that throws is skipped (a listener's failure must not
 * break pause / resume). Shared by {@link GenerationGate} and the sharded gate.
 */
export function notifyGateListeners(
  listeners: Iterable<(change: GateChange) => void>,
  change: GateChange,
): void {
  for (const listener of listeners) {
    try {
      listener(change);
    } catch {
      // skipped: see above
    }
  }
}

/** The part of the SGLang client a gate uses: aborting a rid on every worker. */
export interface GateEngine {
  abort(rid: string, options?: { allowPrefix?: boolean }): Promise<AbortOutcome[]>;
}

/** Options of {@link GenerationGate}. */
export interface GenerationGateOptions {
  /** Receives `/abort_request` by rid on every worker (the run's `SglangClient`). */
  engine: GateEngine;
  /** The trainer-named weight version at start (labels tokens whose engine result names none). */
  weightVersion?: string;
  /**
   * While pausing, aborts are re-sent at this interval for calls still in flight: SGLang drops an abort
   * for a rid it has not registered yet, so a call that was on the wire when the first abort went out
   * would otherwise generate to the end. In ms. @default 250
   */
  reabortIntervalMs?: number;
  /**
   * The fixed-length hex prefix of every rid this gate hands out ({@link GenerationGate.createRid}). A
   * pause aborts with one `/abort_request {"rid": prefix + epoch}` per worker (SGLang matches rids by
   * prefix) instead of one call per request. Must be unique to this run on a shared engine.
   * @default 8 random hex characters
   */
  ridPrefix?: string;
}

/** Hex digits of the pause epoch inside a gate rid (65,536 pauses before it wraps). */
const EPOCH_DIGITS = 4;

type TicketState = "idle" | "waiting" | "generating" | "interrupted";

/** The gate's record of one ticket: the rid it is generating under, and whether a pause aborted it. */
interface TicketRecord {
  rid: string | undefined;
  abortedByPause: boolean;
  /** The current call bypasses the gate (protected): not in `#generating`, never aborted by a pause. */
  bypassing?: boolean;
}

/** Options of {@link GateTicket.acquire}. */
export interface AcquireOptions {
  /**
   * The engine call's rid. @default a fresh {@link GenerationGate.createRid} made when the call is
   * admitted (a bypassing call gets a protected rid, which no pause's prefix abort matches)
   */
  rid?: string;
  /** The request's signal: waiting at the closed gate rejects with its reason. */
  signal: AbortSignal;
  /**
   * Asked when the call is admitted and while it waits: `true` lets it start on a closed gate and keeps it
   * out of pauses (not aborted, not waited for). Used for protected sessions (see
   * docs/contract.md#cross-step-scheduling). @default never
   */
  bypass?: () => boolean;
}

/**
 * One turn request as the gate sees it, from the turn runner's first engine call to its end. Use
 * {@link GateTicket.acquire} before each engine call, {@link GateTicket.release} after it, and
 * {@link GateTicket.close} when the request ends (in a `finally`).
 */
export interface GateTicket {
  /**
   * Waits until the gate is open, then registers an engine call under `rid` — the check and the
   * registration happen in one synchronous step, so no call starts on a closed gate. Counts as held
   * while waiting on a closed gate.
   * @throws the `signal`'s reason when it aborts while waiting.
   */
  acquire(options: AcquireOptions): Promise<string>;
  /**
   * The engine call returned; `aborted` says whether it ended with `finish_reason: abort`. Returns
   * whether a pause caused that abort (then the request counts as held, with a partial output, until its
   * next `acquire` or `close`). A call the pause tried to abort but that finished normally (its abort
   * reached the engine too late) returns `false`.
   */
  release(options: { aborted: boolean }): { abortedByPause: boolean };
  /** The request ended (answered, failed or disconnected). Idempotent. */
  close(): void;
}

/**
 * Pause / resume of generation for a weight update, shared by every session of a run. `pause()` closes
 * the gate, aborts every in-flight engine call by its rid (SGLang `/abort_request` on every worker; the
 * engine answers each with its partial output and `finish_reason: abort`) and resolves once nothing is
 * generating; turn requests wait at the gate with their HTTP call held open. `resume()` reopens it, so a
 * held request continues (the turn runner continues an interrupted one from its partial output).
 * Listeners ({@link GenerationGate.onChange}) let Groups pause the agents' active-time budgets.
 *
 * @example
 * const gate = new GenerationGate({ engine: sglang, weightVersion: "v1" });
 * await gate.pause(); // { abortedRequests: 3, heldRequests: 8, quiescentMs: 12.5 }
 * await sglang.updateWeightsFromDisk({ modelPath: "/ckpt/2", weightVersion: "v2" });
 * gate.resume({ weightVersion: "v2" }); // { resumedRequests: 8, weightVersion: "v2" }
 */
export class GenerationGate implements GateControl {
  readonly #engine: GateEngine;
  readonly #reabortIntervalMs: number;
  readonly #ridPrefix: string;
  /** Prefix of bypassing (protected) rids: same length as `#ridPrefix`, never equal to it. */
  readonly #protectedPrefix: string;
  /** Increases at every resume, so an abort sent for one pause never matches a call of the next. */
  #epoch = 0;
  /** Prefix aborts on the wire, so a re-send waits for the previous answer instead of piling up. */
  readonly #abortsInFlight = new Set<string>();
  #state: GenerationGateState = "open";
  #weightVersion: string | undefined;
  readonly #tickets = new Map<TicketRecord, TicketState>();
  readonly #generating = new Map<string, TicketRecord>();
  readonly #bypassing = new Map<string, TicketRecord>();
  readonly #interrupted = new Set<TicketRecord>();
  #openWaiters: Array<() => void> = [];
  readonly #listeners = new Set<(change: GateChange) => void>();
  #pending:
    | {
        promise: Promise<GatePauseResult>;
        resolve: () => void;
        reject: (error: unknown) => void;
      }
    | undefined;

  constructor(options: GenerationGateOptions) {
    this.#engine = options.engine;
    this.#weightVersion = options.weightVersion;
    this.#reabortIntervalMs = options.reabortIntervalMs ?? 250;
    const prefix = options.ridPrefix ?? randomBytes(4).toString("hex");
    if (!/^[0-9a-f]{1,16}$/.test(prefix)) {
      throw new RangeError(`ridPrefix must be 1-16 lowercase hex characters, got ${JSON.stringify(prefix)}`);
    }
    this.#ridPrefix = prefix;
    let protectedPrefix = randomBytes(8).toString("hex").slice(0, prefix.length);
    while (protectedPrefix === prefix)
      protectedPrefix = randomBytes(8).toString("hex").slice(0, prefix.length);
    this.#protectedPrefix = protectedPrefix;
  }

  /**
   * A fresh 32-character request id for an engine call through this gate: the gate's prefix, the current
   * pause epoch ({@link EPOCH_DIGITS} hex digits) and random hex. All rids of one epoch share a prefix
   * that no other epoch's rid starts with, and all rids have the same length (no rid is a prefix of
   * another), so aborting that prefix reaches exactly the calls started since the last resume.
   */
  createRid(options: { protected?: boolean } = {}): string {
    // A protected rid starts with a prefix of the same length that differs from the gate's, so no prefix
    // abort of any epoch matches it.
    const head = options.protected
      ? this.#protectedPrefix + "ffff".slice(0, EPOCH_DIGITS)
      : this.#epochPrefix(this.#epoch);
    return (
      head +
      randomBytes(16)
        .toString("hex")
        .slice(0, 32 - head.length)
    );
  }

  /** Whether `rid` is a protected rid of this gate (one a bypassing call got). */
  isProtectedRid(rid: string): boolean {
    return rid.length === 32 && rid.startsWith(this.#protectedPrefix + "ffff".slice(0, EPOCH_DIGITS));
  }

  #epochPrefix(epoch: number): string {
    return this.#ridPrefix + (epoch % 16 ** EPOCH_DIGITS).toString(16).padStart(EPOCH_DIGITS, "0");
  }

  get state(): GenerationGateState {
    return this.#state;
  }

  /** The last weight version named by the trainer (constructor or `resume`), or `undefined`. */
  get weightVersion(): string | undefined {
    return this.#weightVersion;
  }

  /** Names the weight version the engine serves now, without pausing (e.g. at step start). */
  setWeightVersion(version: string): void {
    if (version === this.#weightVersion) return;
    this.#weightVersion = version;
    this.#emit();
  }

  counts(): GateCounts {
    let held = 0;
    for (const state of this.#tickets.values()) {
      if (state === "interrupted" || (state === "waiting" && this.#state !== "open")) held++;
    }
    return {
      generating: this.#generating.size,
      held,
      abortedPartials: this.#interrupted.size,
      bypassing: this.#bypassing.size,
    };
  }

  /**
   * Closes the gate, aborts every in-flight engine call by rid, and resolves once none is left. While
   * already paused it resolves at once with `abortedRequests: 0`; while pausing it returns the pending
   * pause.
   * @throws GatePauseTimeoutError when calls are still in flight after `timeoutMs` (the gate stays closed).
   * @throws GatePauseCancelledError when `resume` reopens the gate first.
   */
  pause(options: { timeoutMs?: number } = {}): Promise<GatePauseResult> {
    if (this.#state === "paused") {
      return Promise.resolve({ abortedRequests: 0, heldRequests: this.counts().held, quiescentMs: 0 });
    }
    if (this.#pending !== undefined) return this.#withTimeout(this.#pending.promise, options.timeoutMs);
    const started = performance.now();
    this.#state = "pausing";
    const aborted = [...this.#generating.entries()];
    for (const [, ticket] of aborted) ticket.abortedByPause = true;
    let timer: ReturnType<typeof setInterval> | undefined;
    let settle!: { resolve: () => void; reject: (error: unknown) => void };
    const promise = new Promise<GatePauseResult>((resolve, reject) => {
      settle = {
        resolve: () =>
          resolve({
            abortedRequests: aborted.length,
            heldRequests: this.counts().held,
            quiescentMs: performance.now() - started,
          }),
        reject,
      };
    }).finally(() => {
      if (timer !== undefined) clearInterval(timer);
    });
    // Handled here so that a caller who drops the promise gets no unhandled rejection on cancel.
    promise.catch(() => undefined);
    this.#pending = { promise, ...settle };
    this.#abortGenerating();
    if (this.#generating.size > 0) {
      timer = setInterval(() => this.#abortGenerating(), this.#reabortIntervalMs);
      timer.unref?.();
    }
    this.#emit();
    this.#settleIfQuiescent();
    return this.#withTimeout(promise, options.timeoutMs);
  }

  /**
   * Reopens the gate: every held request continues. `weightVersion` names the version the engine now
   * serves (it labels tokens whose engine result names none). A no-op while open (`resumedRequests: 0`,
   * the version is still recorded). A pending pause rejects with {@link GatePauseCancelledError}.
   */
  resume(options: { weightVersion?: string } = {}): GateResumeResult {
    if (options.weightVersion !== undefined) this.#weightVersion = options.weightVersion;
    if (this.#state === "open") {
      return { resumedRequests: 0, weightVersion: this.#weightVersion };
    }
    const resumedRequests = this.counts().held;
    const pending = this.#pending;
    this.#pending = undefined;
    this.#state = "open";
    this.#epoch++;
    pending?.reject(new GatePauseCancelledError());
    for (const wake of this.#openWaiters.splice(0)) wake();
    this.#emit();
    return { resumedRequests, weightVersion: this.#weightVersion };
  }

  /**
   * Resolves when the gate is open (at once if it is). Note that it may close again before the caller
   * runs; engine calls go through {@link GateTicket.acquire}, which re-checks.
   * @throws the `signal`'s reason when it aborts first.
   */
  waitOpen(signal?: AbortSignal): Promise<void> {
    if (this.#state === "open") return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.#openWaiters = this.#openWaiters.filter((waiter) => waiter !== wake);
        reject(signal!.reason);
      };
      const wake = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.#openWaiters.push(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Calls `listener` on every state or weight-version change. Returns the unsubscribe function. */
  onChange(listener: (change: GateChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Opens a ticket for one turn request (see {@link GateTicket}). */
  openTicket(): GateTicket {
    const ticket: TicketRecord = { rid: undefined, abortedByPause: false, bypassing: false };
    this.#tickets.set(ticket, "idle");
    return {
      acquire: (options) => this.#acquire(ticket, options),
      release: ({ aborted }) => this.#release(ticket, aborted),
      close: () => this.#close(ticket),
    };
  }

  async #acquire(ticket: TicketRecord, options: AcquireOptions): Promise<string> {
    const { signal } = options;
    const bypass = () => options.bypass?.() === true;
    if (!this.#tickets.has(ticket)) throw new Error("the gate ticket is closed");
    if (options.rid !== undefined && (this.#generating.has(options.rid) || this.#bypassing.has(options.rid)))
      throw new Error(`rid ${options.rid} is already generating`);
    this.#tickets.set(ticket, this.#interrupted.has(ticket) ? "interrupted" : "waiting");
    // A bypassing call waits for nothing; a waiting call is re-asked whenever the gate changes (a session
    // promoted to protected while held starts at once).
    while (this.#state !== "open" && !bypass()) await this.#waitOpenOrChange(signal);
    signal.throwIfAborted();
    // No await between the state check above and this registration.
    const bypassing = this.#state !== "open" || bypass();
    const rid = options.rid ?? this.createRid({ protected: bypassing });
    this.#interrupted.delete(ticket);
    ticket.abortedByPause = false;
    ticket.rid = rid;
    ticket.bypassing = bypassing;
    this.#tickets.set(ticket, "generating");
    (bypassing ? this.#bypassing : this.#generating).set(rid, ticket);
    return rid;
  }

  /** Resolves at the next state change (or at once when open); rejects with the signal's reason. */
  #waitOpenOrChange(signal: AbortSignal): Promise<void> {
    if (this.#state === "open") return Promise.resolve();
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        unsubscribe();
        signal.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        done();
        reject(signal.reason);
      };
      const unsubscribe = this.onChange(() => {
        done();
        resolve();
      });
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  #release(ticket: TicketRecord, aborted: boolean): { abortedByPause: boolean } {
    const rid = ticket.rid;
    if (rid !== undefined && ticket.bypassing && this.#bypassing.get(rid) === ticket) {
      // A bypassing call is never aborted by a pause.
      this.#bypassing.delete(rid);
      ticket.rid = undefined;
      ticket.bypassing = false;
      this.#tickets.set(ticket, "idle");
      return { abortedByPause: false };
    }
    if (rid === undefined || this.#generating.get(rid) !== ticket) return { abortedByPause: false };
    this.#generating.delete(rid);
    ticket.rid = undefined;
    const abortedByPause = ticket.abortedByPause && aborted;
    ticket.abortedByPause = false;
    if (abortedByPause) this.#interrupted.add(ticket);
    this.#tickets.set(ticket, abortedByPause ? "interrupted" : "idle");
    this.#settleIfQuiescent();
    return { abortedByPause };
  }

  #close(ticket: TicketRecord): void {
    if (ticket.rid !== undefined && this.#generating.get(ticket.rid) === ticket) {
      this.#generating.delete(ticket.rid);
      ticket.rid = undefined;
    }
    if (ticket.rid !== undefined && this.#bypassing.get(ticket.rid) === ticket) {
      this.#bypassing.delete(ticket.rid);
      ticket.rid = undefined;
    }
    this.#tickets.delete(ticket);
    this.#interrupted.delete(ticket);
    this.#settleIfQuiescent();
  }

  #settleIfQuiescent(): void {
    if (this.#state !== "pausing" || this.#generating.size > 0) return;
    this.#state = "paused";
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.resolve();
    this.#emit();
  }

  /**
   * Aborts every call still generating: one prefix abort per pause epoch found among them (usually one:
   * the current epoch), each reaching every worker; a rid not from {@link GenerationGate.createRid} is
   * aborted alone. A target whose previous abort is still unanswered is skipped until it returns.
   */
  #abortGenerating(): void {
    const targets = new Set<string>();
    const length = this.#ridPrefix.length + EPOCH_DIGITS;
    for (const rid of this.#generating.keys()) {
      targets.add(rid.length === 32 && rid.startsWith(this.#ridPrefix) ? rid.slice(0, length) : rid);
    }
    for (const target of targets) {
      if (this.#abortsInFlight.has(target)) continue;
      this.#abortsInFlight.add(target);
      this.#engine
        .abort(target, { allowPrefix: target.length < 32 })
        .catch(() => undefined)
        .finally(() => this.#abortsInFlight.delete(target));
    }
  }

  #emit(): void {
    notifyGateListeners(this.#listeners, { state: this.#state, weightVersion: this.#weightVersion });
  }

  #withTimeout(promise: Promise<GatePauseResult>, timeoutMs: number | undefined): Promise<GatePauseResult> {
    if (timeoutMs === undefined || !Number.isFinite(timeoutMs)) return promise;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new GatePauseTimeoutError({ timeoutMs, generating: this.#generating.size })),
        timeoutMs,
      );
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }
}
