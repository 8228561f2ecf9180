import type { AgentExecutionError } from "../errors/agent-execution-error";
import type { SessionOutput, SessionOutputWarning } from "../output/session-output";

/** Fields every {@link AgentOutcome} carries. */
export interface AgentOutcomeBase {
  /** The session's label (`sessionLabel`), never its credential. */
  sessionId: string;
  /** Agent exit code, or `null` when a signal killed it. */
  exitCode: number | null;
  /** Signal that killed the agent, or `null`. */
  signal: NodeJS.Signals | null;
  /** Wall-clock milliseconds from process start to the end of cleanup of its process tree. */
  durationMs: number;
  /** Active milliseconds consumed from the `--agent-timeout` budget. */
  activeMs: number;
  /** Combined stdout+stderr log (deleted with the IO directory unless kept or written to `logDir`). */
  logPath: string;
  /** Descendants still alive when the agent exited, terminated and reaped afterwards. */
  leftoverProcesses: number;
  /** `true` when the supervisor confirmed every descendant gone and reaped. */
  reaped: boolean;
}

/**
 * How a session ended:
 * - `succeeded`: exit code 0 and a valid `RELAX_OUTPUT_JSON` (`output`, plus `warnings` such as ignored keys);
 * - `failed`: the agent's fault: non-zero exit, foreign signal, timeout or invalid output (`error`);
 * - `terminated`: the controller stopped it (`reason`); no output is read.
 */
export type AgentOutcome =
  | (AgentOutcomeBase & { status: "succeeded"; output: SessionOutput; warnings: SessionOutputWarning[] })
  | (AgentOutcomeBase & { status: "failed"; error: AgentExecutionError })
  | (AgentOutcomeBase & { status: "terminated"; reason: string });
