import { ERROR_EXIT, hasMarker, RelaxError } from "@relax/chat";

const rolloutInterruptedErrorSymbol = Symbol.for("relax.error.RolloutInterruptedError");

/** Thrown when the run was interrupted (SIGINT / SIGTERM); every agent has been terminated by then. */
export class RolloutInterruptedError extends RelaxError {
  readonly [rolloutInterruptedErrorSymbol] = true;
  /** Ends a command line with exit 130 (143 after SIGTERM) and the message alone (see `ErrorExitCategory`). */
  readonly [ERROR_EXIT] = "interrupted" as const;

  constructor({ message, cause }: { message: string; cause?: unknown }) {
    super({ name: "RolloutInterruptedError", message, cause });
  }

  /** True for any `RolloutInterruptedError`, from any copy of this package. */
  static override isInstance(error: unknown): error is RolloutInterruptedError {
    return hasMarker(error, "relax.error.RolloutInterruptedError");
  }
}
