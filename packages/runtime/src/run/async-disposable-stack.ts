/** Something that releases its resources asynchronously. */
export interface AsyncDisposableResource {
  [Symbol.asyncDispose](): PromiseLike<void> | void;
}

/**
 * A minimal `AsyncDisposableStack` (the TC39 explicit-resource-management shape; Node 20 has
 * `Symbol.asyncDispose` but not the class): resources are registered as they are opened and released in
 * reverse order by {@link AsyncDisposableStack.disposeAsync}. Every release runs even when an earlier one
 * throws; one failure is rethrown as is, several as an `AggregateError`.
 */
export class AsyncDisposableStack implements AsyncDisposable {
  readonly #callbacks: Array<() => PromiseLike<void> | void> = [];
  #disposed = false;

  /** Whether {@link disposeAsync} has run. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /** Registers `resource` (its `[Symbol.asyncDispose]`) and returns it. `null`/`undefined` are skipped. */
  use<T extends AsyncDisposableResource | null | undefined>(resource: T): T {
    if (resource !== null && resource !== undefined) {
      this.defer(() => resource[Symbol.asyncDispose]());
    }
    return resource;
  }

  /** Registers `value` with a release function of its own, and returns `value`. */
  adopt<T>(value: T, release: (value: T) => PromiseLike<void> | void): T {
    this.defer(() => release(value));
    return value;
  }

  /**
   * Registers a callback to run at disposal.
   * @throws ReferenceError when the stack was already disposed.
   */
  defer(callback: () => PromiseLike<void> | void): void {
    if (this.#disposed) throw new ReferenceError("the AsyncDisposableStack is already disposed");
    this.#callbacks.push(callback);
  }

  /** Moves every registration into a new stack (this one ends disposed, releasing nothing). */
  move(): AsyncDisposableStack {
    if (this.#disposed) throw new ReferenceError("the AsyncDisposableStack is already disposed");
    const next = new AsyncDisposableStack();
    next.#callbacks.push(...this.#callbacks.splice(0));
    this.#disposed = true;
    return next;
  }

  /** Releases every registration, last first. Idempotent. */
  async disposeAsync(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    const errors: unknown[] = [];
    for (const callback of this.#callbacks.splice(0).reverse()) {
      try {
        await callback();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, "several resources failed to close");
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.disposeAsync();
  }
}
