/**
 * A fault the stand-in engine injects instead of (or in the middle of) serving a request:
 * - `http-error`: answer `status` with `body` (default: SGLang's `{"error":{"message":...}}`) and extra
 *   response `headers` (e.g. `retry-after`);
 * - `hang`: never answer (the socket stays open until the client gives up or the engine closes);
 * - `reset`: destroy the connection without an answer;
 * - `reset-after-tokens`: start generating, then destroy the connection once `tokens` ids were generated
 *   (the request is aborted on the engine side, as SGLang does on a disconnect).
 */
export type StandinFault =
  | { type: "http-error"; status: number; body?: unknown; headers?: Record<string, string> }
  | { type: "hang" }
  | { type: "reset" }
  | { type: "reset-after-tokens"; tokens: number };

/** When a fault applies. */
export interface StandinFaultRule {
  fault: StandinFault;
  /** Request path the rule applies to. @default "/generate" */
  path?: string;
  /** Matching calls to let through before the fault starts. @default 0 */
  after?: number;
  /** How many matching calls get the fault. @default 1 */
  times?: number;
}

/** Tracks rules and decides, per call, whether a fault applies. */
export class FaultInjector {
  readonly #rules: { rule: StandinFaultRule; seen: number; fired: number }[] = [];

  constructor(rules: readonly StandinFaultRule[] = []) {
    for (const rule of rules) this.add(rule);
  }

  add(rule: StandinFaultRule): void {
    this.#rules.push({ rule, seen: 0, fired: 0 });
  }

  clear(): void {
    this.#rules.length = 0;
  }

  /** The fault for this call of `path`, if any (the first matching rule that still has budget). */
  next(path: string): StandinFault | undefined {
    let chosen: StandinFault | undefined;
    for (const entry of this.#rules) {
      if ((entry.rule.path ?? "/generate") !== path) continue;
      const index = entry.seen++;
      if (chosen) continue;
      if (index < (entry.rule.after ?? 0)) continue;
      if (entry.fired >= (entry.rule.times ?? 1)) continue;
      entry.fired++;
      chosen = entry.rule.fault;
    }
    return chosen;
  }
}
