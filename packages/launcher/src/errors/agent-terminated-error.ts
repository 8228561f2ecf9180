import { hasMarker, LauncherError } from "./launcher-error";

const marker = "relax.error.AgentTerminatedError";
const symbol = Symbol.for(marker);

/**
 * The session was terminated by its controller (`handle.terminate(reason)`, an abort signal), so it has
 * no output to read. Not the agent's fault: the controller decided to stop it (e.g. its Group was dropped).
 */
export class AgentTerminatedError extends LauncherError {
  protected readonly [symbol] = true;
  /** The session that was terminated. */
  readonly sessionId: string;
  /** The reason given to `terminate`. */
  readonly reason: string;

  constructor({ sessionId, reason }: { sessionId: string; reason: string }) {
    super({ name: "AgentTerminatedError", message: `Agent session ${sessionId} was terminated: ${reason}` });
    this.sessionId = sessionId;
    this.reason = reason;
  }

  static override isInstance(error: unknown): error is AgentTerminatedError {
    return hasMarker(error, marker);
  }
}
