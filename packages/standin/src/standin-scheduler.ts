import type { TextTokenizer } from "@relax/chat";
import type { SamplingParamsWire } from "@relax/sglang/internal";
import { callStandinPolicy } from "./call-standin-policy";
import { checkOutputConstraint, type OutputConstraint } from "./constraints/output-constraint";
import { ContinuationStore } from "./continuation-store";
import type { StandinPolicy } from "./policies/standin-policy";
import { PrefixCache } from "./prefix-cache";
import { type ContextHash, StandinLogprobs } from "./standin-logprobs";
import type { StandinOutage } from "./standin-outage";

/** SGLang's finish reason JSON (`BaseFinishReason.to_json`). */
export type FinishReasonJson =
  | { type: "stop"; matched: number | string }
  | { type: "length"; length: number }
  | { type: "abort"; message: string; status_code: number | null; err_type: string | null };

/** A `/generate` request inside the stand-in engine. */
export interface StandinJob {
  rid: string;
  inputIds: number[];
  sampling: SamplingParamsWire;
  headers: Record<string, string>;
  state: "waiting" | "running" | "finished";
  outputIds: number[];
  outputLogprobs: number[];
  /** Weight version in force when each output token was produced. */
  tokenVersions: string[];
  cachedTokens: number;
  /** Prompt length as SGLang reports it: `inputIds` with each image at its expanded length. */
  promptTokens?: number;
  /** `image_data` of the request, in prompt order. */
  imageData?: string[];
  finishReason?: FinishReasonJson;
  /**
   * Set when the policy failed or returned something unusable (the engine answers 500), or when its output
   * breaks the request's constraint (answered `failureStatus` 400).
   */
  failure?: string;
  /** The HTTP status of a {@link failure}. @default 500 */
  failureStatus?: number;
  /** The request's constrained-decoding parameter (`json_schema`, `structural_tag`), enforced on the policy's output. */
  constraint?: OutputConstraint;
  /** `performance.now()` at receipt. */
  receivedAt: number;
  controller: AbortController;
  abortMessage?: string;
  /** Called after each generated token and at the end. */
  onProgress?: (job: StandinJob) => void;
  /** Whether the job holds one of the `maxConcurrency` running slots. */
  holdsSlot?: boolean;
  /** Times `/pause_generation {"mode":"retract"}` sent the job back to the waiting queue. */
  retractions?: number;
  /** Set while the job is retracted: resolves `true` once re-admitted, `false` if aborted while waiting. */
  readmission?: Promise<boolean> | undefined;
}

/** A read-only view of a request, for tests. */
export interface StandinRequestSnapshot {
  rid: string;
  state: "waiting" | "running";
  inputTokens: number;
  outputTokens: number;
}

/** Options of the scheduler (a subset of the engine options). */
export interface StandinSchedulerOptions {
  tokenizer: TextTokenizer;
  policy: StandinPolicy;
  seed: number;
  tokenLatencyMs: number;
  queueLatencyMs: number;
  maxConcurrency: number;
  weightVersion: string;
  defaultMaxNewTokens: number;
  cacheCapacityTokens: number;
  /** Most plans of aborted requests kept for exact continuation (0 disables it). */
  continuationCapacity: number;
  /** Engine-wide fault windows: a stall freezes every token loop. */
  outage?: StandinOutage;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The generation core of the stand-in engine, independent of HTTP: admission with a concurrency limit
 * (FIFO waiting queue), pause / continue, prefix-match aborts, the prefix cache, the policy call and the
 * token loop with SGLang's finish checks.
 */
export class StandinScheduler {
  readonly #options: StandinSchedulerOptions;
  readonly #jobs = new Map<string, StandinJob>();
  readonly #heldAtPause = new Set<StandinJob>();
  readonly #waiting: { job: StandinJob; admit: () => void }[] = [];
  readonly #cache: PrefixCache;
  readonly #continuations: ContinuationStore;
  readonly #watchers = new Set<() => void>();
  #running = 0;
  #paused: false | "abort" | "retract" | "in_place" = false;
  #resume: { promise: Promise<void>; resolve: () => void } | undefined;
  #weightVersion: string;
  #logprobs: StandinLogprobs;
  #requestIndex = 0;

  constructor(options: StandinSchedulerOptions) {
    this.#options = options;
    this.#weightVersion = options.weightVersion;
    this.#logprobs = new StandinLogprobs({ seed: options.seed, weightVersion: options.weightVersion });
    this.#cache = new PrefixCache({ capacityTokens: options.cacheCapacityTokens });
    this.#continuations = new ContinuationStore({
      capacity: options.continuationCapacity,
      capacityTokens: options.cacheCapacityTokens,
    });
  }

  /** Plans of aborted requests kept for exact continuation. */
  get continuationsKept(): number {
    return this.#continuations.size;
  }

  get weightVersion(): string {
    return this.#weightVersion;
  }

  set weightVersion(version: string) {
    this.#weightVersion = version;
    this.#logprobs = new StandinLogprobs({ seed: this.#options.seed, weightVersion: version });
  }

  get paused(): false | "abort" | "retract" | "in_place" {
    return this.#paused;
  }

  /** Whether a rid is in flight (held at a pause included). */
  has(rid: string): boolean {
    if (this.#jobs.has(rid)) return true;
    for (const job of this.#heldAtPause) if (job.rid === rid) return true;
    return false;
  }

  snapshot(): StandinRequestSnapshot[] {
    return [...this.#jobs.values()]
      .filter((job) => job.state !== "finished")
      .map((job) => ({
        rid: job.rid,
        state: job.state as "waiting" | "running",
        inputTokens: job.inputIds.length,
        outputTokens: job.outputIds.length,
      }));
  }

  /** Resolves once `predicate(snapshot)` holds (checked on every state change). */
  until(predicate: (requests: StandinRequestSnapshot[]) => boolean): Promise<void> {
    if (predicate(this.snapshot())) return Promise.resolve();
    return new Promise((resolve) => {
      const watcher = () => {
        if (predicate(this.snapshot())) {
          this.#watchers.delete(watcher);
          resolve();
        }
      };
      this.#watchers.add(watcher);
    });
  }

  #notify(): void {
    for (const watcher of [...this.#watchers]) watcher();
  }

  /** Registers a job and runs it to the end; resolves with the finished job. */
  async run(job: StandinJob): Promise<StandinJob> {
    // SGLang's tokenizer manager holds a request that arrives while generation is paused before it
    // reaches the scheduler: it is in no queue (a cache flush is not refused because of it) until continue.
    if (this.#paused !== false) await this.#holdAtPause(job);
    this.#jobs.set(job.rid, job);
    this.#notify();
    try {
      const admitted = await this.#admit(job);
      if (!admitted || job.controller.signal.aborted) {
        if (admitted) this.#release(job);
        this.#finish(job, this.#abortReason(job, "Abort in waiting queue"), false);
        return job;
      }
      job.state = "running";
      job.cachedTokens = Math.min(this.#cache.match(job.inputIds), Math.max(0, job.inputIds.length - 1));
      this.#notify();
      try {
        await this.#generate(job);
      } finally {
        this.#release(job);
      }
      return job;
    } finally {
      this.#jobs.delete(job.rid);
      job.state = "finished";
      job.onProgress?.(job);
      this.#notify();
    }
  }

  /** Waits while generation is paused (or until the job is aborted: a disconnect or a prefix abort). */
  async #holdAtPause(job: StandinJob): Promise<void> {
    this.#heldAtPause.add(job);
    try {
      const signal = job.controller.signal;
      while (this.#paused !== false && this.#resume !== undefined && !signal.aborted) {
        const resume = this.#resume.promise;
        await new Promise<void>((resolve) => {
          resume.then(resolve);
          signal.addEventListener("abort", () => resolve(), { once: true });
        });
      }
    } finally {
      this.#heldAtPause.delete(job);
    }
  }

  /**
   * Resolves `true` at once when not paused, else once generation continues; `false` after `timeoutMs` or
   * when `signal` aborts first.
   */
  async waitResumed(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.#paused === false || this.#resume === undefined) return true;
    const resume = this.#resume.promise;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const resumed = await new Promise<boolean>((resolve) => {
      resume.then(() => resolve(true));
      timer = setTimeout(() => resolve(false), timeoutMs);
      signal?.addEventListener("abort", () => resolve(false), { once: true });
    });
    clearTimeout(timer);
    return resumed;
  }

  /** Requests that arrived while paused, held before the scheduler. */
  get heldAtPause(): number {
    return this.#heldAtPause.size;
  }

  /** Resolves `true` once the job holds a running slot, `false` if it was aborted while waiting. */
  #admit(job: StandinJob): Promise<boolean> {
    if (this.#canStart() && this.#waiting.length === 0) {
      this.#running++;
      job.holdsSlot = true;
      return Promise.resolve(true);
    }
    return this.#enqueue(job);
  }

  /** Puts a job in the waiting queue (FCFS: ordered by receipt). */
  #enqueue(job: StandinJob): Promise<boolean> {
    return new Promise((resolve) => {
      const entry = { job, admit: () => resolve(true) };
      let at = this.#waiting.length;
      while (at > 0 && this.#waiting[at - 1]!.job.receivedAt > job.receivedAt) at--;
      this.#waiting.splice(at, 0, entry);
      job.controller.signal.addEventListener(
        "abort",
        () => {
          const index = this.#waiting.indexOf(entry);
          if (index >= 0) this.#waiting.splice(index, 1);
          resolve(false);
        },
        { once: true },
      );
    });
  }

  #canStart(): boolean {
    return this.#paused === false && this.#running < this.#options.maxConcurrency;
  }

  #release(job: StandinJob): void {
    if (!job.holdsSlot) return;
    job.holdsSlot = false;
    this.#running--;
    this.#admitNext();
  }

  #admitNext(): void {
    while (this.#waiting.length > 0 && this.#canStart()) {
      const entry = this.#waiting.shift()!;
      this.#running++;
      entry.job.holdsSlot = true;
      entry.admit();
    }
  }

  /**
   * Aborts every in-flight request whose rid starts with `ridPrefix` (SGLang's prefix match), or all of
   * them. An empty prefix without `all` aborts nothing, as in SGLang. Returns how many were aborted.
   */
  abort({
    ridPrefix,
    all = false,
    message = "Aborted",
  }: {
    ridPrefix?: string | undefined;
    all?: boolean;
    message?: string;
  }): number {
    if (!all && !ridPrefix) return 0;
    let count = 0;
    for (const job of [...this.#jobs.values(), ...this.#heldAtPause]) {
      if (job.state === "finished" || job.controller.signal.aborted) continue;
      if (all || job.rid.startsWith(ridPrefix!)) {
        job.abortMessage = message;
        job.controller.abort();
        count++;
      }
    }
    return count;
  }

  /**
   * `/pause_generation`. Every mode holds requests that arrive afterwards before the scheduler (as SGLang's
   * tokenizer manager does: in no queue, so a cache flush is not refused because of them) until `resume`.
   * Then:
   * - `abort`: every request in flight ends now (HTTP 200, `finish_reason.type` `"abort"`, its partial
   *   output), as SGLang's abort-all;
   * - `retract`: running requests go back to the waiting queue with their output kept (their KV is
   *   dropped: on re-admission `cached_tokens` grows by the prefix-cache match of prompt + output, and
   *   `num_retractions` counts it); their HTTP calls stay open and they continue after `resume`;
   * - `in_place`: running requests freeze where they are, keeping their slot (and their KV, so
   *   `/flush_cache` is refused), and continue after `resume`.
   */
  pause(mode: "abort" | "retract" | "in_place"): void {
    if (mode === "abort") this.abort({ all: true });
    if (mode === "retract") {
      for (const job of this.#jobs.values()) {
        if (job.state !== "running" || job.controller.signal.aborted) continue;
        job.state = "waiting";
        job.retractions = (job.retractions ?? 0) + 1;
        job.holdsSlot = false;
        this.#running--;
        job.readmission = this.#enqueue(job);
      }
      this.#notify();
    }
    this.#paused = mode;
    if (!this.#resume) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      this.#resume = { promise, resolve };
    }
  }

  /** `/continue_generation`. */
  resume(): void {
    this.#paused = false;
    this.#resume?.resolve();
    this.#resume = undefined;
    this.#admitNext();
  }

  /** Requests waiting or running. */
  get busy(): number {
    return this.#jobs.size;
  }

  /**
   * Prompt logprobs from position `start` (`logprob_start_len`): `[logprob, id, null]`, with a `null`
   * logprob at position 0, as SGLang reports them.
   */
  promptLogprobs(inputIds: readonly number[], start: number): [number | null, number, string | null][] {
    const triples: [number | null, number, string | null][] = [];
    let hash = this.#logprobs.start();
    for (let position = 0; position < inputIds.length; position++) {
      const id = inputIds[position]!;
      if (position >= start)
        triples.push([position === 0 ? null : this.#logprobs.logprob(hash, id), id, null]);
      hash = this.#logprobs.extend(hash, id);
    }
    return triples;
  }

  /**
   * `/flush_cache`; refused (false) while requests are running or waiting (retracted or frozen ones
   * included), as in SGLang. Kept continuation plans are not part of the cache and stay.
   */
  flushCache({ force = false }: { force?: boolean } = {}): boolean {
    if (!force && this.#jobs.size > 0) return false;
    this.#cache.clear();
    return true;
  }

  /** Resolves once no request that is already aborted is still finishing. */
  async drainAborted(): Promise<void> {
    await this.until(() =>
      [...this.#jobs.values()].every((job) => job.state === "finished" || !job.controller.signal.aborted),
    );
  }

  /** Resolves once no request is in flight. */
  async drain(): Promise<void> {
    await this.until((requests) => requests.length === 0);
  }

  get cachedTokensStored(): number {
    return this.#cache.size;
  }

  #abortReason(job: StandinJob, fallback: string): FinishReasonJson {
    return { type: "abort", message: job.abortMessage ?? fallback, status_code: null, err_type: null };
  }

  #finish(job: StandinJob, reason: FinishReasonJson, cache: boolean): void {
    job.finishReason = reason;
    if (cache) {
      // SGLang caches the computed KV of (prompt + output)[:-1] when a request finishes.
      const sequence = job.inputIds.concat(job.outputIds);
      if (sequence.length > 1) this.#cache.insert(sequence.slice(0, -1));
    }
  }

  async #generate(job: StandinJob): Promise<void> {
    const signal = job.controller.signal;
    const { queueLatencyMs, tokenizer } = this.#options;
    if (queueLatencyMs > 0) await sleep(queueLatencyMs, signal);
    await this.#waitWhilePaused(job);
    if (signal.aborted) return this.#finish(job, this.#abortReason(job, "Aborted"), true);

    const maxNewTokens = job.sampling.max_new_tokens ?? this.#options.defaultMaxNewTokens;
    if (maxNewTokens === 0) return this.#finish(job, { type: "length", length: 0 }, true);

    const stopTokenIds = job.sampling.stop_token_ids ?? [];
    const stopSet = new Set<number>([...stopTokenIds, ...tokenizer.stopTokenIds]);
    // An exact continuation of an aborted request (prompt + its emitted ids) takes the rest of its plan.
    let planned = this.#continuations.take(job.inputIds);
    if (!planned) {
      try {
        planned = await callStandinPolicy({
          job,
          policy: this.#options.policy,
          tokenizer,
          requestIndex: this.#requestIndex++,
        });
      } catch (error) {
        if (signal.aborted) return this.#finish(job, this.#abortReason(job, "Aborted"), true);
        job.failure = `stand-in policy failed: ${error instanceof Error ? error.message : String(error)}`;
        return;
      }
      // Constrained decoding could not have produced a text the constraint forbids: refuse it visibly.
      // The text checked ends before the first stop token (the engine allows one once the grammar is done).
      if (job.constraint !== undefined) {
        const firstStop = planned.findIndex((id) => stopSet.has(id));
        const checked = firstStop === -1 ? planned : planned.slice(0, firstStop);
        const violation = checkOutputConstraint(
          job.constraint,
          tokenizer.decode(checked, { skipSpecialTokens: false }),
        );
        if (violation !== undefined) {
          job.failure = violation;
          job.failureStatus = 400;
          return;
        }
      }
      const appended = stopTokenIds[0] ?? tokenizer.stopTokenIds[0];
      if (appended !== undefined) planned.push(appended);
    }
    const plan = planned;
    const abortWithPlan = () => {
      // Keep the rest of the plan for an exact continuation (prompt + emitted ids → remaining ids).
      this.#continuations.keep(job.inputIds, job.outputIds, plan.slice(job.outputIds.length));
      this.#finish(job, this.#abortReason(job, "Aborted"), true);
    };
    const stops =
      job.sampling.stop == null
        ? []
        : Array.isArray(job.sampling.stop)
          ? job.sampling.stop
          : [job.sampling.stop];
    const longestStop = stops.reduce((max, stop) => Math.max(max, stop.length), 0);

    let hash: ContextHash = this.#logprobs.hashOf(job.inputIds);
    let logprobsVersion = this.#weightVersion;
    for (let index = 0; index < planned.length; index++) {
      await this.#tick(job);
      if (signal.aborted) return abortWithPlan();
      if (logprobsVersion !== this.#weightVersion) {
        // The weights changed mid-request: later tokens come from the new version.
        logprobsVersion = this.#weightVersion;
        hash = this.#logprobs.hashOf(job.inputIds.concat(job.outputIds));
      }
      const id = planned[index]!;
      job.outputIds.push(id);
      job.outputLogprobs.push(this.#logprobs.logprob(hash, id));
      job.tokenVersions.push(this.#weightVersion);
      hash = this.#logprobs.extend(hash, id);

      // SGLang's check order (Req.check_finished): length, then EOS / stop ids, then stop strings.
      let reason: FinishReasonJson | undefined;
      if (job.outputIds.length >= maxNewTokens) reason = { type: "length", length: maxNewTokens };
      else if (stopSet.has(id)) reason = { type: "stop", matched: id };
      else if (longestStop > 0) {
        const tail = tokenizer.decode(job.outputIds.slice(-(longestStop + 1)), { skipSpecialTokens: false });
        const matched = stops.find((stop) => tail.includes(stop));
        if (matched !== undefined) reason = { type: "stop", matched };
      }
      if (reason) {
        this.#finish(job, reason, true);
        job.onProgress?.(job);
        return;
      }
      job.onProgress?.(job);
      this.#notify();
    }
    // Only reachable when the tokenizer has no stop token at all.
    this.#finish(job, { type: "length", length: job.outputIds.length }, true);
  }

  async #tick(job: StandinJob): Promise<void> {
    const latency = this.#options.tokenLatencyMs;
    if (latency > 0) await sleep(latency, job.controller.signal);
    else await yieldToEventLoop();
    await this.#options.outage?.whileStalled(job.controller.signal);
    await this.#waitWhilePaused(job);
  }

  /** Holds a job while generation is paused in place, or until a retracted job is re-admitted. */
  async #waitWhilePaused(job: StandinJob): Promise<void> {
    const signal = job.controller.signal;
    while (!signal.aborted) {
      if (job.readmission) {
        const admitted = await job.readmission;
        job.readmission = undefined;
        if (!admitted || signal.aborted) return;
        // Re-prefill of prompt + output so far: SGLang adds the new prefix match to `cached_tokens`.
        job.state = "running";
        const sequence = job.inputIds.concat(job.outputIds);
        job.cachedTokens += Math.min(this.#cache.match(sequence), Math.max(0, sequence.length - 1));
        this.#notify();
        continue;
      }
      if (this.#paused === false || !this.#resume) return;
      const resume = this.#resume.promise;
      await Promise.race([
        resume,
        new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true })),
      ]);
    }
  }
}
