import { ERROR_EXIT, hasMarker, RelaxError } from "@relax/chat";

const name = "FunctionLoadError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A user function given as `module#export` (`--custom-rm-path`, `--agentic-custom-advantage-path`)
 * could not be loaded: the spec is malformed, the module cannot be imported, or the export is missing
 * or not a function. `cause` keeps the import error.
 */
export class FunctionLoadError extends RelaxError {
  readonly [symbol] = true;
  /** Ends a command line with exit 1 and the message alone (see `ErrorExitCategory`). */
  readonly [ERROR_EXIT] = "failure" as const;
  /** The spec as configured, e.g. `./advantage.mjs#advantageFunc`. */
  readonly spec: string;
  /** Why loading failed, without the spec prefix. */
  readonly reason: string;

  constructor({ spec, reason, cause }: { spec: string; reason: string; cause?: unknown }) {
    super({ name, message: `cannot load function "${spec}": ${reason}`, cause });
    this.spec = spec;
    this.reason = reason;
  }

  /** True for any `FunctionLoadError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is FunctionLoadError {
    return hasMarker(error, marker);
  }
}
