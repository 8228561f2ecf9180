import { ERROR_EXIT, hasMarker, RelaxError } from "@relax/chat";

const backendUnavailableErrorSymbol = Symbol.for("relax.error.BackendUnavailableError");

/** The inference backend did not answer its health check at start-up (503 `backend_unavailable`). */
export class BackendUnavailableError extends RelaxError {
  readonly [backendUnavailableErrorSymbol] = true;
  /** Ends a command line with exit 1 and the message alone (see `ErrorExitCategory`). */
  readonly [ERROR_EXIT] = "failure" as const;

  constructor({ message, cause }: { message: string; cause?: unknown }) {
    super({ name: "BackendUnavailableError", message, cause });
  }

  /** True for any `BackendUnavailableError`, from any copy of this package. */
  static override isInstance(error: unknown): error is BackendUnavailableError {
    return hasMarker(error, "relax.error.BackendUnavailableError");
  }
}
