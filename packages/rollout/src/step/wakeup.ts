/** Tells a waiting step that something changed (a Group finished or changed state). */
export class Wakeup {
  #waiters: Array<() => void> = [];

  notify(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Resolves at the next notify, or after `timeoutMs` when given. */
  wait(timeoutMs?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const wake = () => {
        if (timer !== undefined) clearTimeout(timer);
        resolve();
      };
      this.#waiters.push(wake);
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.#waiters = this.#waiters.filter((waiter) => waiter !== wake);
          resolve();
        }, timeoutMs);
      }
    });
  }
}
