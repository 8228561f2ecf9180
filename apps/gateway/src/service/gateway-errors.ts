const sessionNotFound = Symbol.for("relax.error.SessionNotFoundError");
const groupDropped = Symbol.for("relax.error.GroupDroppedError");

/**
 * The credential names no live session (unknown, finished or dropped). `@relax/protocol` renders it as
 * 404 `session_discarded` with `x-should-retry: false`, as the Python Relax does.
 */
export class SessionNotFoundError extends Error {
  readonly [sessionNotFound] = true;
  override readonly name = "SessionNotFoundError";
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} is unknown or already closed`);
  }
  static isInstance(error: unknown): error is SessionNotFoundError {
    return typeof error === "object" && error !== null && sessionNotFound in error;
  }
}

/** A Group was dropped whole; `reason` is a short machine-readable cause, `message` the details. */
export class GroupDroppedError extends Error {
  readonly [groupDropped] = true;
  override readonly name = "GroupDroppedError";
  constructor(
    readonly reason: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
  static isInstance(error: unknown): error is GroupDroppedError {
    return typeof error === "object" && error !== null && groupDropped in error;
  }
}
