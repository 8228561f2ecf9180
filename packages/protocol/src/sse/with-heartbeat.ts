/** Marker yielded by {@link withHeartbeat} after each quiet interval. */
export const HEARTBEAT: unique symbol = Symbol.for("relax.protocol.heartbeat");
/** The type of {@link HEARTBEAT}. */
export type Heartbeat = typeof HEARTBEAT;

/**
 * Passes `events` through and yields {@link HEARTBEAT} whenever `intervalMs` pass without an event (the
 * interval restarts after every yield). The SSE writer renders the marker as the protocol's heartbeat
 * frame, so proxies and clients with idle timeouts keep the connection during a long generation.
 *
 * Returning early (the consumer stops, e.g. the client disconnected) clears the timer and calls
 * `return()` on the source without waiting for a pending `next()`; a later rejection of that pending
 * call is swallowed.
 *
 * @param intervalMs - quiet time before each heartbeat, in milliseconds; `0`, negative or non-finite
 *   disables heartbeats.
 */
export async function* withHeartbeat<T>(
  events: AsyncIterable<T>,
  intervalMs: number,
): AsyncGenerator<T | Heartbeat, void, undefined> {
  const iterator = events[Symbol.asyncIterator]();
  const beats = intervalMs > 0 && Number.isFinite(intervalMs);
  let pending: Promise<IteratorResult<T>> | undefined;
  let finished = false;
  try {
    while (true) {
      pending ??= iterator.next();
      let timer: ReturnType<typeof setTimeout> | undefined;
      let next: IteratorResult<T> | Heartbeat;
      try {
        next = beats
          ? await Promise.race([
              pending,
              new Promise<Heartbeat>((resolve) => {
                timer = setTimeout(() => resolve(HEARTBEAT), intervalMs);
              }),
            ])
          : await pending;
      } finally {
        clearTimeout(timer);
      }
      if (next === HEARTBEAT) {
        yield HEARTBEAT;
        continue;
      }
      pending = undefined;
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!finished) {
      pending?.catch(() => {});
      void Promise.resolve(iterator.return?.()).catch(() => {});
    }
  }
}
