const marker = Symbol.for("relax.error.FunctionLoadError");

/**
 * A user function given as `module#export` (`--custom-rm-path`, `--agentic-custom-advantage-path`)
 * could not be loaded: the spec is malformed, the module cannot be imported, or the export is missing
 * or not a function. `cause` keeps the import error.
 */
export class FunctionLoadError extends Error {
  readonly [marker] = true;
  override readonly name = "FunctionLoadError";
  /** The spec as configured, e.g. `./advantage.mjs#advantageFunc`. */
  readonly spec: string;
  /** Why loading failed, without the spec prefix. */
  readonly reason: string;

  constructor({ spec, reason, cause }: { spec: string; reason: string; cause?: unknown }) {
    super(`cannot load function "${spec}": ${reason}`, cause === undefined ? undefined : { cause });
    this.spec = spec;
    this.reason = reason;
  }

  /** True for any `FunctionLoadError`, including one from another copy of this package. */
  static isInstance(error: unknown): error is FunctionLoadError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
