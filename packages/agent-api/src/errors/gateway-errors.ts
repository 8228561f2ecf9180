import { hasMarker, RelaxError } from "@relax/chat";

const sessionNotFound = Symbol.for("relax.error.SessionNotFoundError");
const groupDropped = Symbol.for("relax.error.GroupDroppedError");
const generationAborted = Symbol.for("relax.error.GenerationAbortedError");

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

/** A Group was dropped whole; `reason` is a short machine-readable cause, `message` the details. */
export class GroupDroppedError extends RelaxError {
  readonly [groupDropped] = true;
  /** Machine-readable cause, e.g. `agent_error`. */
  readonly reason: string;

  constructor({ reason, message, cause }: { reason: string; message: string; cause?: unknown }) {
    super({ name: "GroupDroppedError", message, cause });
    this.reason = reason;
  }

  /** True for any `GroupDroppedError`, from any copy of this package. */
  static override isInstance(error: unknown): error is GroupDroppedError {
    return hasMarker(error, "relax.error.GroupDroppedError");
  }
}

/**
 * The engine ended a turn with `finish_reason: abort` although neither the agent nor the session asked
 * for it (a scheduler abort: out of memory, a pause in `abort` mode). The error table answers 503
 * `generation_aborted`, retryable; nothing was committed.
 */
export class GenerationAbortedError extends RelaxError {
  readonly [generationAborted] = true;
  /** The rid of the aborted `/generate` call. */
  readonly rid: string;

  constructor({ rid, detail, cause }: { rid: string; detail: string; cause?: unknown }) {
    super({
      name: "GenerationAbortedError",
      message: `the inference backend aborted the generation${detail ? `: ${detail}` : ""}`,
      cause,
    });
    this.rid = rid;
  }

  /** True for any `GenerationAbortedError`, from any copy of this package. */
  static override isInstance(error: unknown): error is GenerationAbortedError {
    return hasMarker(error, "relax.error.GenerationAbortedError");
  }
}
