const marker = Symbol.for("relax.error.AdvantageResultError");

/**
 * A custom advantage function returned something other than `null` or a list aligned with the sampled
 * Group (`[{contextName: finiteNumber}]`). `path` names the offending value, e.g. `result[1].searcher_0`.
 * The export pipeline turns it into a dropped Group (reason `advantage_function_error`).
 */
export class AdvantageResultError extends Error {
  readonly [marker] = true;
  override readonly name = "AdvantageResultError";
  /** Path of the offending value in the returned structure, rooted at `result`. */
  readonly path: string;
  /** The message without the path prefix. */
  readonly reason: string;

  constructor({ path, reason }: { path: string; reason: string }) {
    super(`${path}: ${reason}`);
    this.path = path;
    this.reason = reason;
  }

  /** True for any `AdvantageResultError`, including one from another copy of this package. */
  static isInstance(error: unknown): error is AdvantageResultError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
