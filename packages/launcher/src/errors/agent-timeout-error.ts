import { AgentExecutionError } from "./agent-execution-error";
import { hasMarker } from "./launcher-error";

const marker = "relax.error.AgentTimeoutError";
const symbol = Symbol.for(marker);

/**
 * The session's active-time budget (`--agent-timeout`) ran out and Relax terminated the agent's process
 * group. Only time spent active in Runtime counts (prelaunch waits and partial-rollout holds do not).
 */
export class AgentTimeoutError extends AgentExecutionError {
  protected readonly [symbol] = true;
  /** The configured active-time budget in milliseconds. */
  readonly timeoutMs: number;
  /** Active milliseconds consumed when the budget expired (≥ `timeoutMs`). */
  readonly activeMs: number;

  constructor({
    sessionId,
    timeoutMs,
    activeMs,
    exitCode = null,
    signal = null,
    durationMs = 0,
    logTail = "",
  }: {
    sessionId: string;
    timeoutMs: number;
    activeMs: number;
    exitCode?: number | null;
    signal?: NodeJS.Signals | null;
    durationMs?: number;
    logTail?: string;
  }) {
    super({
      sessionId,
      kind: "timeout",
      summary: `timed out after ${formatSeconds(timeoutMs)} of active time`,
      exitCode,
      signal,
      durationMs,
      logTail,
    });
    this.name = "AgentTimeoutError";
    this.timeoutMs = timeoutMs;
    this.activeMs = activeMs;
  }

  static override isInstance(error: unknown): error is AgentTimeoutError {
    return hasMarker(error, marker);
  }
}

function formatSeconds(milliseconds: number): string {
  return `${Number((milliseconds / 1000).toFixed(3))}s`;
}
