import { ERROR_EXIT, hasMarker, RelaxError } from "@relax/chat";

const rolloutStalledErrorSymbol = Symbol.for("relax.error.RolloutStalledError");

/** Thrown when a step cannot fill its batch because every Group keeps failing. */
export class RolloutStalledError extends RelaxError {
  readonly [rolloutStalledErrorSymbol] = true;
  /** Ends a command line with exit 1 and the message alone (see `ErrorExitCategory`). */
  readonly [ERROR_EXIT] = "failure" as const;

  constructor({ message, cause }: { message: string; cause?: unknown }) {
    super({ name: "RolloutStalledError", message, cause });
  }

  /** True for any `RolloutStalledError`, from any copy of this package. */
  static override isInstance(error: unknown): error is RolloutStalledError {
    return hasMarker(error, "relax.error.RolloutStalledError");
  }
}
