import type { SessionForest } from "@relax/forest";
import { type ConversationHistory, createConversationHistory } from "@relax/protocol";
import { SessionNotFoundError } from "../errors/session-not-found-error";

/** Where a session is in its lifecycle (see docs/contract.md#session-lifecycle). */
export type GatewaySessionState = "prepare" | "runtime" | "closed";

/**
 * The gateway's view of one Session: its forest, its place in a Group, and the first-request barrier.
 * Requests that arrive before the Group is leased have their observation committed and are then held
 * (their HTTP call stays open) until {@link GatewaySession.lease}.
 */
export class GatewaySession {
  /**
   * Non-secret label of the session (e.g. `g3-1-0a1b2c.s0`): used in rows, logs, folder and log names.
   */
  readonly id: string;
  /**
   * The agent's Bearer credential (`RELAX_SESSION_ID`): 128 random bits in `relax rollout`. Only the
   * agent's environment and the registry's digest see it (docs/security.md#credentials).
   */
  readonly credential: string;
  readonly groupId: string;
  readonly mode: "train" | "eval";
  /**
   * The session's forest. In a sharded gateway (`--gateway-shards`) the controller's copy is a
   * placeholder until the session closes; {@link GatewaySession.settled} resolves once the shard's final
   * forest has replaced it.
   */
  forest: SessionForest;
  /**
   * `RELAX_BASE_URL` for this session's agent when it differs from the run's (a sharded gateway points
   * each agent at its own shard). @default the run's base URL
   */
  baseUrl?: string | undefined;
  /**
   * Base of the per-turn sampling seed (`base + turn id`) sent when the agent gives none; set with
   * `--rollout-deterministic-seed` so that a run is reproducible. `undefined` sends no seed.
   */
  readonly samplingSeedBase?: number;
  #state: GatewaySessionState = "prepare";
  #requests = 0;
  #generating = 0;
  #leaseResolve!: () => void;
  #leaseReject!: (error: unknown) => void;
  readonly #leased: Promise<void>;
  readonly #inflight = new Set<AbortController>();
  readonly #closed = new AbortController();
  readonly #firstRequestListeners: Array<() => void> = [];
  #abortCount = 0;
  #protected = false;
  #protectionPending = false;
  readonly #onChange: (() => void) | undefined;
  /** Engine time and token counts, for metrics. */
  readonly stats = { turns: 0, generatedTokens: 0, engineMs: 0, gatewayMs: 0 };
  /**
   * This session's committed replies, by reply id: what `previous_response_id`, `item_reference` and an
   * Anthropic `thread` continuation resolve against (the recent 64).
   */
  readonly history: ConversationHistory = createConversationHistory();
  /**
   * The last non-2xx answer the agent got (status and message), so that a Group dropped after it can
   * say "request refused: 400 …" instead of only that the agent exited.
   */
  lastRefusal?: { status: number; path: string; message: string };
  /**
   * Forests of the request classes with policy `record` (title, compaction, …), by class: kept for the
   * debug dump, never exported. Created on a class's first request.
   */
  readonly sideForests = new Map<string, SessionForest>();
  /** Requests per request class (`main`, `title`, …), whatever their policy. */
  readonly requestClasses = new Map<string, number>();
  /** System prompt of the first trained request that declared tools (the classifier's main-loop reference). */
  mainSystemPrompt?: string;
  /**
   * A `compaction` request was answered since the last trained turn: the next trained request that resets
   * the context starts a compaction segment (see `BeginTurnOptions.segment` of `@relax/forest`).
   */
  compactedSinceTrain = false;

  constructor(options: {
    id: string;
    /** @default `id` (tests and embedders that use one string for both; the controller never does) */
    credential?: string;
    groupId: string;
    mode: "train" | "eval";
    forest: SessionForest;
    samplingSeedBase?: number;
    /**
     * Called (synchronously) after every change of `requests`, `inflight`, `generating`, `abortCount` or
     * `protected`: a gateway shard mirrors them to the controller with it.
     */
    onChange?: () => void;
  }) {
    this.#onChange = options.onChange;
    this.id = options.id;
    this.credential = options.credential ?? options.id;
    if (options.samplingSeedBase !== undefined) this.samplingSeedBase = options.samplingSeedBase;
    this.groupId = options.groupId;
    this.mode = options.mode;
    this.forest = options.forest;
    this.#leased = new Promise<void>((resolve, reject) => {
      this.#leaseResolve = resolve;
      this.#leaseReject = reject;
    });
    this.#leased.catch(() => {});
  }

  get state(): GatewaySessionState {
    return this.#state;
  }

  /** Aborted when the session closes (its reason a `DOMException` `AbortError` naming why). */
  get closedSignal(): AbortSignal {
    return this.#closed.signal;
  }

  /** Requests received so far. */
  get requests(): number {
    return this.#requests;
  }

  /** Requests currently in the engine (not held at the barrier). */
  get generating(): number {
    return this.#generating;
  }

  /** Requests currently generating or held. */
  get inflight(): number {
    return this.#inflight.size;
  }

  /**
   * Pause aborts on this session's lineage so far (cumulative over its turns; see
   * docs/contract.md#cross-step-scheduling).
   */
  get abortCount(): number {
    return this.#abortCount;
  }

  /**
   * Whether the session is protected (`--partial-rollout-max-aborted-count`): its engine calls bypass the
   * generation gate, a pause never aborts them, its active-time budget keeps running. Set at the first gate
   * resume after the threshold was reached ({@link GatewaySession.promoteProtection}); kept until the end.
   */
  get protected(): boolean {
    return this.#protected;
  }

  /**
   * Counts one pause abort; once the count reaches `threshold` (when given) protection is pending until
   * the next resume.
   */
  recordPauseAbort(threshold: number | undefined): void {
    this.#abortCount++;
    if (threshold !== undefined && this.#abortCount >= threshold) this.#protectionPending = true;
    this.#onChange?.();
  }

  /** Makes a pending protection effective (called when the gate reopens). Returns whether it changed. */
  promoteProtection(): boolean {
    if (!this.#protectionPending || this.#protected) return false;
    this.#protected = true;
    this.#onChange?.();
    return true;
  }

  /** Registers a callback for the session's first request (used by the Group barrier). */
  onFirstRequest(listener: () => void): void {
    if (this.requests > 0) listener();
    else this.#firstRequestListeners.push(listener);
  }

  /**
   * Registers a request: returns an `AbortController` that aborts when the session closes, linked to
   * the client's signal. Call {@link GatewaySession.endRequest} when it ends.
   * @throws SessionNotFoundError when the session is closed.
   */
  beginRequest(clientSignal: AbortSignal): AbortController {
    if (this.#state === "closed") throw new SessionNotFoundError({ sessionId: this.id });
    const controller = new AbortController();
    const onAbort = () => controller.abort(clientSignal.reason);
    if (clientSignal.aborted) onAbort();
    else clientSignal.addEventListener("abort", onAbort, { once: true });
    this.#inflight.add(controller);
    this.#requests++;
    if (this.#requests === 1) for (const listener of this.#firstRequestListeners.splice(0)) listener();
    this.#onChange?.();
    return controller;
  }

  endRequest(controller: AbortController): void {
    if (this.#inflight.delete(controller)) this.#onChange?.();
  }

  /**
   * Resolves once the session has been opened where its requests are served (at once in a one-process
   * gateway; a sharded gateway's controller copy resolves when its shard registered it). Launch the
   * agent only after it.
   * @throws when the session could not be opened (its shard died).
   */
  get ready(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Resolves once the closed session's state is final here (at once in a one-process gateway; a sharded
   * gateway's controller copy resolves when the shard's final forest arrived, or its shard died).
   */
  get settled(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Registers a callback for the loss of the process serving this session (a gateway shard that died):
   * its Group cannot continue. Never called in a one-process gateway.
   */
  onLost(_listener: (message: string) => void): void {}

  /** Records the first request of a remote session (a shard's mirror): the barrier's listeners run. */
  protected noteFirstRequest(): void {
    for (const listener of this.#firstRequestListeners.splice(0)) listener();
  }

  /** Waits for the Group's Runtime lease (the first-request barrier), or rejects when `signal` aborts. */
  async waitForLease(signal: AbortSignal): Promise<void> {
    if (this.#state === "runtime") return;
    signal.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#leased.then(
        () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
        (error) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      );
    });
  }

  /** Marks the start and end of an engine call (for the active-generation count). */
  generationStarted(): void {
    this.#generating++;
    this.#onChange?.();
  }
  generationEnded(): void {
    this.#generating--;
    this.#onChange?.();
  }

  /** Releases held requests: the Group got its Runtime lease. */
  lease(): void {
    if (this.#state !== "prepare") return;
    this.#state = "runtime";
    this.#leaseResolve();
  }

  /** Closes the session: held and running requests abort, later requests get 404. Idempotent. */
  close(reason = "session closed"): void {
    if (this.#state === "closed") return;
    this.#state = "closed";
    const error = new SessionNotFoundError({ sessionId: this.id });
    this.#leaseReject(error);
    for (const controller of this.#inflight) controller.abort(new DOMException(reason, "AbortError"));
    this.#inflight.clear();
    this.#closed.abort(new DOMException(reason, "AbortError"));
    this.#onChange?.();
  }
}
