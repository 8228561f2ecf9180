import { hasMarker, RelaxError } from "@relax/chat";

const sessionNotFound = Symbol.for("relax.error.SessionNotFoundError");

/**
 * The credential names no live session (unknown, finished or dropped). `@relax/protocol`'s error table
 * answers 404 `session_discarded` with `x-should-retry: false`.
 */
export class SessionNotFoundError extends RelaxError {
  readonly [sessionNotFound] = true;
  /** The session id the request carried. */
  readonly sessionId: string;

  constructor({ sessionId, cause }: { sessionId: string; cause?: unknown }) {
    super({
      name: "SessionNotFoundError",
      message: `session ${sessionId} is unknown or already closed`,
      cause,
    });
    this.sessionId = sessionId;
  }

  /** True for any `SessionNotFoundError`, from any copy of this package. */
  static override isInstance(error: unknown): error is SessionNotFoundError {
    return hasMarker(error, "relax.error.SessionNotFoundError");
  }
}
