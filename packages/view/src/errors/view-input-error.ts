import { ERROR_EXIT, hasMarker, RelaxError } from "@relax/chat";

const name = "ViewInputError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/** A viewer input (debug dump, rows file or run directory) cannot be read; the message names file and field. */
export class ViewInputError extends RelaxError {
  readonly [symbol] = true;
  /** Ends a command line with exit 1 and the message alone (see `ErrorExitCategory`). */
  readonly [ERROR_EXIT] = "failure" as const;

  /**
   * @param message - `<file>: <field path>: <what is wrong>`.
   * @param options.cause - the underlying error, when there is one.
   */
  constructor(message: string, options: { cause?: unknown } = {}) {
    super({ name, message, cause: options.cause });
  }

  /** True for any `ViewInputError`, including one from another copy of this package (its marker is `true`). */
  static override isInstance(error: unknown): error is ViewInputError {
    return hasMarker(error, marker);
  }
}
