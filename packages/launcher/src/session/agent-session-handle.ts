import type { AgentOutcome } from "../outcome/agent-outcome";
import type { ParsedSessionOutput } from "../output/session-output";

/** Lifecycle state of a launched session. */
export type AgentSessionState = "running" | "terminating" | "exited";

/**
 * A running agent session, as the gateway's controller drives it. The active-time budget starts paused
 * (prelaunch): call `activate()` when the session's Group gets its Runtime lease, `pause()` /
 * `resume()` around partial-rollout holds.
 */
export interface AgentSessionHandle {
  /** The session's label (`sessionLabel`), never its credential. */
  readonly sessionId: string;
  /** Pid of the agent (`bash -lc`), also its process group id. */
  readonly pid: number;
  /** Combined stdout+stderr log on the launcher's machine. */
  readonly logPath: string;
  /** `RELAX_SESSION_IO_DIR` (inside the sandbox). */
  readonly ioDir: string;
  readonly state: AgentSessionState;
  /** Whether the timeout budget is currently counting. */
  readonly active: boolean;
  /** Active milliseconds consumed so far. */
  readonly activeMs: number;
  /** Active milliseconds left before `AgentTimeoutError`. */
  readonly remainingMs: number;
  /** The session entered Runtime: start (or resume) consuming the budget. Idempotent. */
  activate(): void;
  /** Stop consuming the budget (partial-rollout hold, fully-async step boundary). Idempotent. */
  pause(): void;
  /** Resume consuming the budget after a pause. Same as `activate()`. */
  resume(): void;
  /**
   * Terminates the agent's whole process tree (SIGTERM, grace, SIGKILL, reap) and resolves with the
   * `terminated` outcome. `force` skips the grace period. Harmless after exit: returns `done`.
   */
  terminate(reason?: string, options?: { force?: boolean }): Promise<AgentOutcome>;
  /**
   * Resolves once the process tree is gone, the output is parsed, hooks ran and the sandbox was cleaned
   * up. Rejects only for infrastructure errors (a throwing `afterRun` hook or harness, a failing
   * backend), never for agent failures, which resolve as `status: "failed"`.
   */
  readonly done: Promise<AgentOutcome>;
  /**
   * The parsed `RELAX_OUTPUT_JSON` once the session has ended.
   * @throws {AgentExecutionError} the session failed (including invalid output).
   * @throws {AgentTerminatedError} the session was terminated by its controller.
   */
  readOutput(): Promise<ParsedSessionOutput>;
}
