import { hasMarker, RelaxError } from "@relax/chat";

const groupDropped = Symbol.for("relax.error.GroupDroppedError");

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
