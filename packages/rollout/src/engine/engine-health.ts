import { setTimeout as sleepFor } from "node:timers/promises";
import { BackendUnavailableError, isEngineOutageError } from "@relax/agent-api";
import type { ServerHealth } from "@relax/sglang";
import type { Logger } from "pino";
import type { PromptItem } from "../dataset/prompt-dataset";
import {
  BACKEND_DROP_PREFIX,
  isBackendDrop as isBackendCausedDrop,
  isDroppedGroup,
} from "../group/group-outcome";
import type { GroupResult } from "../group/run-group";

/** The backoff schedule of {@link EngineHealth}. */
export interface EngineBackoff {
  /** First wait after a failed health check, in ms. @default 500 */
  initialMs: number;
  /** Longest single wait, in ms (each wait doubles up to it). @default 15000 */
  maxMs: number;
  /** How long one outage may last before the step fails (RolloutStalledError), in ms. @default 900000 */
  maxOutageMs: number;
}

/** Default {@link EngineBackoff}: 0.5 s, 1 s, 2 s, 4 s, 8 s, then 15 s per wait, for up to 15 minutes. */
export const DEFAULT_ENGINE_BACKOFF: EngineBackoff = { initialMs: 500, maxMs: 15_000, maxOutageMs: 900_000 };

/** Options of {@link EngineHealth}. */
export interface EngineHealthOptions {
  /** One health check of every engine server (`SglangClient.health`: `GET /health`; never throws). */
  probe: () => Promise<ServerHealth[]>;
  logger: Logger;
  /** @default DEFAULT_ENGINE_BACKOFF */
  backoff?: Partial<EngineBackoff>;
  /** Waits `ms` (resolves early when `signal` aborts). Injected by tests. @default node:timers/promises setTimeout */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Clock in ms. @default Date.now */
  now?: () => number;
}

/** Where the prompt of a Group that waits comes from (for the dropped result of an interrupted wait). */
interface WaitingGroup {
  signal?: AbortSignal | undefined;
  prompt: PromptItem;
  slot: number;
  rolloutId: number;
}

/**
 * The controller's view of the inference engine during a run (see docs/contract.md#runtime-scheduling):
 *
 * - a turn that fails with an outage error ({@link isEngineOutageError}) marks the engine down;
 * - while it is down, a Group about to start waits ({@link runWhenHealthy}) for one shared health-check
 *   loop: `probe`, then waits of `initialMs`, `2 × initialMs`, … up to `maxMs` each, every wait logged,
 *   until every server answers healthy (no agent process starts into a dead backend);
 * - Groups already running are left alone (their sessions keep their state; agents see retryable 503s);
 * - a Group dropped while one of its sessions saw an outage error is a backend drop: its reason becomes
 *   `backend_<reason>` ({@link classify}), counted as `rollout/dropped_groups/backend_<reason>` and not in
 *   the controller's consecutive-drop budget;
 * - an outage longer than `maxOutageMs` sets {@link failure} (BackendUnavailableError), which fails the step.
 */
export class EngineHealth {
  readonly #probe: () => Promise<ServerHealth[]>;
  readonly #logger: Logger;
  readonly #backoff: EngineBackoff;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #now: () => number;
  #down = false;
  #waiting: Promise<void> | undefined;
  #failure: BackendUnavailableError | undefined;
  /** Sessions that saw an outage error since their Group started (cleared when the Group is classified). */
  readonly #sawOutage = new Set<string>();
  readonly #closed = new AbortController();
  /** Waits logged so far over the run (for tests and metrics). */
  waits = 0;

  constructor(options: EngineHealthOptions) {
    this.#probe = options.probe;
    this.#logger = options.logger;
    this.#backoff = { ...DEFAULT_ENGINE_BACKOFF, ...options.backoff };
    this.#sleep =
      options.sleep ??
      // An unref'd timer: a wait never keeps the process alive on its own.
      ((ms, signal) =>
        sleepFor(ms, undefined, { ref: false, ...(signal ? { signal } : {}) }).catch(() => {}));
    this.#now = options.now ?? Date.now;
  }

  /** Whether the engine is believed down (the next Group waits for a healthy check). */
  get down(): boolean {
    return this.#down;
  }

  /** Set when the last outage outlasted `maxOutageMs`; cleared when a new wait starts. */
  get failure(): BackendUnavailableError | undefined {
    return this.#failure;
  }

  /** A failed turn of `sessionId`: an outage error marks the engine down and the session's Group as hit. */
  noteTurnError(sessionId: string, error: unknown): void {
    if (!isEngineOutageError(error)) return;
    this.#sawOutage.add(sessionId);
    if (!this.#down) {
      this.#down = true;
      this.#logger.warn(
        { session: sessionId, err: error instanceof Error ? error.message : String(error) },
        "AGENTIC engine failure: new Groups wait for the engine's health check",
      );
    }
  }

  /** Marks the engine down (the next Group waits for a healthy check). */
  markDown(): void {
    this.#down = true;
  }

  /**
   * Waits until the engine is healthy (returns at once when it is not believed down), then starts the
   * Group with `run`. An abort during the wait answers a dropped `interrupted` result; an outage past
   * `maxOutageMs` a dropped `backend_unavailable` one (and {@link failure} is set).
   */
  async runWhenHealthy(run: () => Promise<GroupResult>, group: WaitingGroup): Promise<GroupResult> {
    if (this.#down) await this.waitHealthy(group.signal);
    const dropped = (reason: string, message: string): GroupResult => ({
      kind: "dropped",
      groupId: `g${group.rolloutId}-${group.slot}`,
      prompt: group.prompt,
      reason,
      message,
      sessions: [],
      outcomes: [],
    });
    if (group.signal?.aborted) return dropped("interrupted", "the run was interrupted");
    if (this.#failure !== undefined) return dropped("backend_unavailable", this.#failure.message);
    return run();
  }

  /**
   * Resolves when a health check passes, when the outage outlasted `maxOutageMs` ({@link failure} set), or
   * when `signal` aborts. Concurrent callers share one check loop (one log line per wait).
   */
  async waitHealthy(signal?: AbortSignal): Promise<void> {
    this.#waiting ??= this.#loop().finally(() => {
      this.#waiting = undefined;
    });
    if (signal === undefined) return this.#waiting;
    if (signal.aborted) return;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<void>((resolve) => {
      onAbort = resolve;
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      await Promise.race([this.#waiting, aborted]);
    } finally {
      if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
    }
  }

  async #loop(): Promise<void> {
    this.#failure = undefined;
    const started = this.#now();
    let delay = this.#backoff.initialMs;
    let attempt = 0;
    for (;;) {
      const servers = await this.#probe();
      const unhealthy = servers.filter((server) => !server.ok);
      if (servers.length > 0 && unhealthy.length === 0) {
        this.#down = false;
        if (attempt > 0) {
          this.#logger.info(
            { waits: attempt, outage_s: Number(((this.#now() - started) / 1000).toFixed(1)) },
            "AGENTIC engine healthy again: launching Groups",
          );
        }
        return;
      }
      const what = unhealthy
        .map((server) => `${server.url} (${server.error ?? `HTTP ${server.status}`})`)
        .join(", ");
      const elapsed = this.#now() - started;
      if (elapsed >= this.#backoff.maxOutageMs) {
        this.#failure = new BackendUnavailableError({
          message: `the inference engine stayed unhealthy for ${Math.round(elapsed / 1000)} s (${what || "no server"}); giving up`,
        });
        this.#logger.error({ outage_s: Math.round(elapsed / 1000) }, this.#failure.message);
        return;
      }
      attempt++;
      this.waits++;
      const wait = Math.min(delay, this.#backoff.maxOutageMs - elapsed);
      this.#logger.warn(
        { attempt, wait_ms: wait, unhealthy: what },
        `AGENTIC engine not healthy: waiting ${wait} ms before launching Groups`,
      );
      await this.#sleep(wait, this.#closed.signal);
      if (this.#closed.signal.aborted) return;
      delay = Math.min(delay * 2, this.#backoff.maxMs);
    }
  }

  /**
   * A finished Group as the controller counts it: a drop ({@link isDroppedGroup}) of a Group one of whose
   * sessions saw an outage error becomes `backend_<reason>` (the turn error marked the engine down already).
   */
  classify(result: GroupResult): GroupResult {
    const hit = result.sessions.some((session) => this.#sawOutage.has(session.id));
    for (const session of result.sessions) this.#sawOutage.delete(session.id);
    if (!isDroppedGroup(result) || isBackendCausedDrop(result) || !hit) return result;
    // Not marked down again here: the session's turn error did that when it happened, and a health check
    // that passed since (a Group started after this one's agents exited) is newer information.
    return {
      ...result,
      reason: `${BACKEND_DROP_PREFIX}${result.reason}`,
      message: `the inference engine failed during the Group: ${result.message}`,
    };
  }

  /** Stops a running wait loop (the run is closing); waiting Groups resume and see their own signal. */
  close(): void {
    this.#closed.abort();
  }

  /** Whether a dropped Group was dropped because of the backend (`backend_*` reason). */
  isBackendDrop(result: GroupResult): boolean {
    return isBackendCausedDrop(result);
  }
}
