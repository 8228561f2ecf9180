import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HEARTBEAT, withHeartbeat } from "./with-heartbeat";

/** A source whose values are pushed by the test. */
function controlledSource<T>() {
  const waiting: ((result: IteratorResult<T>) => void)[] = [];
  const failing: ((error: unknown) => void)[] = [];
  let returned = false;
  const iterable: AsyncIterable<T> = {
    [Symbol.asyncIterator]: () => ({
      next: () =>
        new Promise<IteratorResult<T>>((resolve, reject) => {
          waiting.push(resolve);
          failing.push(reject);
        }),
      return: async () => {
        returned = true;
        return { value: undefined, done: true };
      },
    }),
  };
  return {
    iterable,
    push: (value: T) => waiting.shift()?.({ value, done: false }),
    end: () => waiting.shift()?.({ value: undefined, done: true }),
    fail: (error: unknown) => failing.shift()?.(error),
    wasReturned: () => returned,
  };
}

/** Collects what the iterator yields, and whether it finished, without blocking the test. */
function drain<T>(iterator: AsyncIterator<T>) {
  const seen: T[] = [];
  let done = false;
  let error: unknown;
  const loop = (async () => {
    try {
      while (true) {
        const next = await iterator.next();
        if (next.done) break;
        seen.push(next.value);
      }
      done = true;
    } catch (caught) {
      error = caught;
    }
  })();
  return { seen, isDone: () => done, error: () => error, loop };
}

describe("withHeartbeat", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("should yield a heartbeat after each quiet interval and pass events through", async () => {
    const source = controlledSource<string>();
    const out = drain(withHeartbeat(source.iterable, 15_000)[Symbol.asyncIterator]());
    await vi.advanceTimersByTimeAsync(14_999);
    expect(out.seen).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(out.seen).toEqual([HEARTBEAT]);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(out.seen).toEqual([HEARTBEAT, HEARTBEAT, HEARTBEAT]);
    source.push("terminal");
    await vi.advanceTimersByTimeAsync(0);
    expect(out.seen).toEqual([HEARTBEAT, HEARTBEAT, HEARTBEAT, "terminal"]);
    source.end();
    await out.loop;
    expect(out.isDone()).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("should restart the interval after every event", async () => {
    const source = controlledSource<number>();
    const out = drain(withHeartbeat(source.iterable, 1_000)[Symbol.asyncIterator]());
    await vi.advanceTimersByTimeAsync(900);
    source.push(1);
    await vi.advanceTimersByTimeAsync(900);
    expect(out.seen).toEqual([1]);
    await vi.advanceTimersByTimeAsync(100);
    expect(out.seen).toEqual([1, HEARTBEAT]);
    source.end();
    await out.loop;
  });

  it("should never beat when the interval is 0", async () => {
    const source = controlledSource<number>();
    const out = drain(withHeartbeat(source.iterable, 0)[Symbol.asyncIterator]());
    await vi.advanceTimersByTimeAsync(1_000_000);
    expect(out.seen).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
    source.push(7);
    await vi.advanceTimersByTimeAsync(0);
    source.end();
    await out.loop;
    expect(out.seen).toEqual([7]);
  });

  it("should pass a source error through and stop beating", async () => {
    const source = controlledSource<number>();
    const out = drain(withHeartbeat(source.iterable, 1_000)[Symbol.asyncIterator]());
    await vi.advanceTimersByTimeAsync(1_000);
    source.fail(new Error("generation failed"));
    await out.loop;
    expect(out.seen).toEqual([HEARTBEAT]);
    expect(out.error()).toEqual(new Error("generation failed"));
    expect(vi.getTimerCount()).toBe(0);
  });

  it("should clear its timer and return the source when the consumer stops early", async () => {
    const source = controlledSource<number>();
    const iterator = withHeartbeat(source.iterable, 1_000)[Symbol.asyncIterator]();
    const first = iterator.next();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await first).toEqual({ value: HEARTBEAT, done: false });
    await iterator.return?.(undefined);
    expect(source.wasReturned()).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    // The abandoned next() may still reject later without an unhandled rejection.
    source.fail(new Error("aborted"));
    await vi.advanceTimersByTimeAsync(0);
  });
});
