import { hasMarker, LauncherError } from "./launcher-error";

const marker = "relax.error.AgentExecutionError";
const symbol = Symbol.for(marker);

/**
 * Why an agent session failed (the agent's fault, not the infrastructure's):
 * - `exit`: the agent exited with a non-zero code;
 * - `signal`: the agent was killed by a signal Relax did not send;
 * - `timeout`: the active-time budget (`--agent-timeout`) ran out ({@link AgentTimeoutError});
 * - `invalid-output`: `RELAX_OUTPUT_JSON` broke the contract (`cause` is a `SessionOutputError`);
 * - `launch`: the command could not be started at all (exec failure).
 */
export type AgentFailureKind = "exit" | "signal" | "timeout" | "invalid-output" | "launch";

/** What {@link AgentExecutionError} is built from: the failed session and how its agent ended. */
export interface AgentExecutionErrorOptions {
  sessionId: string;
  kind: AgentFailureKind;
  /** One-line description, e.g. `"exited with code 3"`. */
  summary: string;
  /** @default null */
  exitCode?: number | null;
  /** @default null */
  signal?: NodeJS.Signals | null;
  /** @default 0 */
  durationMs?: number;
  /** @default "" */
  logTail?: string;
  cause?: unknown;
}

/**
 * A session's agent process failed. The controller treats it as a controlled drop of the Group (not an
 * infrastructure failure; see docs/contract.md#session-lifecycle). Carries the last 8 KiB of the
 * combined stdout+stderr log (`logTail`, cut on a UTF-8 character boundary), which is also appended to
 * `message`.
 */
export class AgentExecutionError extends LauncherError {
  protected readonly [symbol] = true;
  /** The session whose agent failed. */
  readonly sessionId: string;
  /** What went wrong. */
  readonly kind: AgentFailureKind;
  /** Agent exit code, or `null` when it was killed by a signal or never started. */
  readonly exitCode: number | null;
  /** Signal that killed the agent (e.g. `"SIGKILL"`), or `null`. */
  readonly signal: NodeJS.Signals | null;
  /** Wall-clock milliseconds from launch to exit. */
  readonly durationMs: number;
  /** Last bytes (at most 8192) of the combined stdout+stderr log, decoded as UTF-8. */
  readonly logTail: string;

  constructor({
    sessionId,
    kind,
    summary,
    exitCode = null,
    signal = null,
    durationMs = 0,
    logTail = "",
    cause,
  }: AgentExecutionErrorOptions) {
    const head = `Agent session ${sessionId} ${summary}.`;
    super({
      name: "AgentExecutionError",
      message: logTail ? `${head}\n--- agent log tail ---\n${logTail}` : head,
      cause,
    });
    this.sessionId = sessionId;
    this.kind = kind;
    this.exitCode = exitCode;
    this.signal = signal;
    this.durationMs = durationMs;
    this.logTail = logTail;
  }

  static override isInstance(error: unknown): error is AgentExecutionError {
    return hasMarker(error, marker);
  }
}
