const marker = Symbol.for("relax.error.ViewInputError");

/** A viewer input (debug dump, rows file or run directory) cannot be read; the message names file and field. */
export class ViewInputError extends Error {
  readonly [marker] = true;
  override readonly name = "ViewInputError";

  /** True for any `ViewInputError`, including one from another copy of this package. */
  static isInstance(error: unknown): error is ViewInputError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
