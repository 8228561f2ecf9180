/**
 * An active-time budget (`--agent-timeout`): time counts only while the timer is active, so prelaunch
 * waits and partial-rollout holds (paused) do not consume it. When the accumulated active time reaches
 * the budget, `onExpire` runs once.
 * @see docs/contract.md#agent-process-contract, docs/contract.md#session-lifecycle
 */
export class ActiveTimer {
  readonly budgetMs: number;
  private readonly onExpire: () => void;
  private readonly now: () => number;
  private accumulatedMs = 0;
  private activeSince: number | null = null;
  private handle: ReturnType<typeof setTimeout> | null = null;
  private finished = false;
  private expiredFlag = false;

  /**
   * @param options.budgetMs active milliseconds allowed (> 0).
   * @param options.onExpire called once when the budget is used up.
   * @param options.now monotonic clock in ms. @default performance.now
   */
  constructor({
    budgetMs,
    onExpire,
    now = () => performance.now(),
  }: {
    budgetMs: number;
    onExpire: () => void;
    now?: () => number;
  }) {
    this.budgetMs = budgetMs;
    this.onExpire = onExpire;
    this.now = now;
  }

  /** Whether time is currently being counted. */
  get active(): boolean {
    return this.activeSince !== null;
  }

  /** Whether the budget ran out. */
  get expired(): boolean {
    return this.expiredFlag;
  }

  /** Active milliseconds consumed so far. */
  get activeMs(): number {
    return this.accumulatedMs + (this.activeSince === null ? 0 : this.now() - this.activeSince);
  }

  /** Active milliseconds left (never negative). */
  get remainingMs(): number {
    return Math.max(0, this.budgetMs - this.activeMs);
  }

  /** Starts or resumes counting. No-op when active, expired or stopped. */
  resume(): void {
    if (this.finished || this.activeSince !== null) return;
    this.activeSince = this.now();
    this.schedule();
  }

  /** Pauses counting, keeping the time consumed so far. No-op when not active. */
  pause(): void {
    if (this.activeSince === null) return;
    this.accumulatedMs += this.now() - this.activeSince;
    this.activeSince = null;
    this.clear();
  }

  /** Pauses for good (the session ended); later `resume` calls are ignored. */
  stop(): void {
    this.pause();
    this.finished = true;
  }

  private schedule(): void {
    this.clear();
    this.handle = setTimeout(() => this.check(), Math.max(0, this.remainingMs));
    this.handle.unref?.();
  }

  private check(): void {
    this.handle = null;
    if (this.activeSince === null || this.finished) return;
    if (this.remainingMs > 0) {
      this.schedule(); // timers may fire a little early
      return;
    }
    this.pause();
    this.finished = true;
    this.expiredFlag = true;
    this.onExpire();
  }

  private clear(): void {
    if (this.handle !== null) clearTimeout(this.handle);
    this.handle = null;
  }
}
