/**
 * How long a turn's generation outlives its client by default: the client's retry of the same request
 * (an SDK timeout, a reset connection) is answered by the generation already running instead of a second
 * one from the same state. The openai and anthropic SDKs retry after 0.5–8 s of backoff; Qwen Code's
 * provider retry follows its timeout at once.
 */
export const DEFAULT_RETRY_WINDOW_MS = 30_000;

/** Options of {@link RetryWindow}. */
export interface RetryWindowOptions {
  /** The client's signal: aborted when the client goes away. */
  client: AbortSignal;
  /** Aborted when the session closes: the generation stops at once, whoever waits for it. */
  session: AbortSignal;
  /**
   * How long after the client left the generation waits for a reader (a retry) before it is aborted, in
   * milliseconds. `0`: the generation stops when its client leaves.
   */
  windowMs: number;
}

/**
 * Keeps one turn's generation alive for a while after its client left, for that client's retry (see
 * docs/contract.md#idempotent-requests). While the client is connected the generation is the client's.
 * Once it leaves, the generation goes on for `windowMs`; an identical request arriving meanwhile
 * {@link claim}s it and becomes its reader. When the window closes without a reader, {@link signal}
 * aborts (the engine call stops, the turn fails, nothing is committed). A finished generation without a
 * reader is not committed until one claims it ({@link untilRead}): an answer nobody received never becomes
 * part of the session's history.
 */
export class RetryWindow {
  readonly #controller = new AbortController();
  readonly #options: RetryWindowOptions;
  #readers = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #onRead: (() => void) | undefined;

  constructor(options: RetryWindowOptions) {
    this.#options = options;
    const { client, session } = options;
    if (session.aborted) this.#controller.abort(session.reason);
    else session.addEventListener("abort", this.#onSessionAbort, { once: true });
    if (client.aborted) this.#clientLeft();
    else client.addEventListener("abort", this.#clientLeft, { once: true });
  }

  /** The generation's signal: aborted when the session closes, or when the window closed without a reader. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /**
   * Marks a retry as a reader of this generation (it waits for the answer): the window stays open while it
   * waits. Call the returned function when it stops waiting (answered, or gone itself).
   */
  claim(): () => void {
    this.#readers++;
    this.#clearTimer();
    this.#onRead?.();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#readers--;
      if (this.#readers === 0 && this.#options.client.aborted) this.#startTimer();
    };
  }

  /**
   * Resolves once the finished generation has a reader: at once while the client is connected or a retry
   * claimed it; otherwise when one claims it before the window closes.
   *
   * @throws the signal's reason when the window closes (or the session closes) first.
   */
  untilRead(): Promise<void> {
    const { signal } = this;
    if (signal.aborted) return Promise.reject(signal.reason);
    if (!this.#options.client.aborted || this.#readers > 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.#onRead = undefined;
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#onRead = () => {
        this.#onRead = undefined;
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
    });
  }

  /** Stops following the client and the session (the turn is settled). */
  dispose(): void {
    this.#clearTimer();
    this.#options.client.removeEventListener("abort", this.#clientLeft);
    this.#options.session.removeEventListener("abort", this.#onSessionAbort);
  }

  readonly #onSessionAbort = (): void => {
    this.#clearTimer();
    this.#controller.abort(this.#options.session.reason);
  };

  readonly #clientLeft = (): void => {
    if (this.#readers === 0) this.#startTimer();
  };

  #startTimer(): void {
    if (this.#controller.signal.aborted) return;
    const { client, windowMs } = this.#options;
    if (windowMs <= 0) {
      this.#controller.abort(client.reason);
      return;
    }
    this.#clearTimer();
    this.#timer = setTimeout(() => this.#controller.abort(client.reason), windowMs);
    this.#timer.unref?.();
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
