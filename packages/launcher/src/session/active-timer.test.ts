import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ActiveTimer } from "./active-timer";

describe("ActiveTimer", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function create(budgetMs: number) {
    const onExpire = vi.fn();
    const timer = new ActiveTimer({ budgetMs, onExpire, now: () => Date.now() });
    return { timer, onExpire };
  }

  it("should not count time before the first resume (prelaunch)", () => {
    const { timer, onExpire } = create(1000);
    vi.advanceTimersByTime(5000);
    expect(timer.activeMs).toBe(0);
    expect(timer.active).toBe(false);
    expect(onExpire).not.toHaveBeenCalled();
  });

  it("should accumulate only active time across pauses and expire exactly at the budget", () => {
    const { timer, onExpire } = create(1000);
    timer.resume();
    vi.advanceTimersByTime(400);
    timer.pause();
    vi.advanceTimersByTime(10_000); // partial-rollout hold
    expect(timer.activeMs).toBe(400);
    expect(timer.remainingMs).toBe(600);
    timer.resume();
    timer.resume(); // idempotent
    vi.advanceTimersByTime(599);
    expect(onExpire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onExpire).toHaveBeenCalledTimes(1);
    expect(timer.expired).toBe(true);
    expect(timer.active).toBe(false);
    expect(timer.activeMs).toBe(1000);
    timer.resume();
    vi.advanceTimersByTime(5000);
    expect(onExpire).toHaveBeenCalledTimes(1);
  });

  it("should never expire after stop", () => {
    const { timer, onExpire } = create(100);
    timer.resume();
    vi.advanceTimersByTime(50);
    timer.stop();
    timer.resume();
    vi.advanceTimersByTime(1000);
    expect(onExpire).not.toHaveBeenCalled();
    expect(timer.activeMs).toBe(50);
  });
});
