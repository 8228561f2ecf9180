/**
 * Engine-wide fault windows of the stand-in engine (it is not a model; these imitate what a real SGLang
 * server does when it crashes, restarts or stalls):
 *
 * - **outage** (`mode: "refuse"`, the default): as a crashed or restarting server. At the start every
 *   request in flight is dropped (its connection destroyed, nothing answered, its generation aborted) and,
 *   while the window lasts, every new connection is destroyed as soon as it opens, `/health` included.
 *   `mode: "http-503"` answers every request `503 {"error":{"message":…}}` instead (a server that is up
 *   but not ready, or a router without a healthy worker); requests in flight are dropped the same way.
 * - **stall**: as a hung scheduler (a GPU or NCCL hang). Requests in flight stop producing tokens, new
 *   `/generate` calls are admitted but produce nothing, and `/health_generate` does not answer; plain
 *   `/health` still answers 200 (the HTTP server is alive). When the stall ends, everything continues where
 *   it stopped.
 *
 * A window with `durationMs` ends by itself; without one it lasts until it is ended explicitly.
 */
export class StandinOutage {
  #outage: { mode: "refuse" | "http-503"; timer?: ReturnType<typeof setTimeout> } | undefined;
  #stall: { promise: Promise<void>; resolve: () => void; timer?: ReturnType<typeof setTimeout> } | undefined;
  /** Outages started so far (for tests). */
  outages = 0;

  /** The outage mode in force, or `undefined`. */
  get outage(): "refuse" | "http-503" | undefined {
    return this.#outage?.mode;
  }

  /** Whether generation is stalled. */
  get stalled(): boolean {
    return this.#stall !== undefined;
  }

  /** Starts an outage (replacing one in force); `onStart` drops what is in flight. */
  startOutage({ mode = "refuse", durationMs }: { mode?: "refuse" | "http-503"; durationMs?: number }): void {
    this.endOutage();
    const outage: { mode: "refuse" | "http-503"; timer?: ReturnType<typeof setTimeout> } = { mode };
    if (durationMs !== undefined) {
      outage.timer = setTimeout(() => {
        if (this.#outage === outage) this.#outage = undefined;
      }, durationMs);
      outage.timer.unref?.();
    }
    this.#outage = outage;
    this.outages++;
  }

  endOutage(): void {
    if (this.#outage?.timer !== undefined) clearTimeout(this.#outage.timer);
    this.#outage = undefined;
  }

  /** Stalls generation (a no-op while already stalled, except that `durationMs` re-arms the end). */
  startStall({ durationMs }: { durationMs?: number } = {}): void {
    if (this.#stall === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      this.#stall = { promise, resolve };
    }
    const stall = this.#stall;
    if (stall.timer !== undefined) clearTimeout(stall.timer);
    if (durationMs !== undefined) {
      stall.timer = setTimeout(() => this.endStall(), durationMs);
      stall.timer.unref?.();
    }
  }

  endStall(): void {
    const stall = this.#stall;
    this.#stall = undefined;
    if (stall?.timer !== undefined) clearTimeout(stall.timer);
    stall?.resolve();
  }

  /** Resolves once no stall is in force (at once when none is), or when `signal` aborts. */
  async whileStalled(signal?: AbortSignal): Promise<void> {
    while (this.#stall !== undefined && signal?.aborted !== true) {
      const stall = this.#stall.promise;
      await new Promise<void>((resolve) => {
        stall.then(resolve);
        signal?.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  }
}
