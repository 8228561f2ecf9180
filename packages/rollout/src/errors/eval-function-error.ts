import { ERROR_EXIT, hasMarker, RelaxError } from "@relax/chat";

/** The flag an eval function is given by, as error messages name it. */
export const EVAL_FUNCTION_FLAG = "--eval-function-path (evalFunctionPath)";
const marker = "relax.error.EvalFunctionError";
const markerSymbol = Symbol.for(marker);

/**
 * The eval function threw, or returned something that is not an `EvalFunctionResult`. The message
 * names the flag, the spec, the dataset and (for a bad result) the field path of the first problem.
 */
export class EvalFunctionError extends RelaxError {
  readonly [markerSymbol] = true;
  /** Ends a command line with exit 1 and the message alone (see `ErrorExitCategory`). */
  readonly [ERROR_EXIT] = "failure" as const;
  /** The spec as configured. */
  readonly spec: string;
  /** The eval dataset it was called for. */
  readonly dataset: string;
  /** Dotted path of the first invalid field of the result; absent when the function threw. */
  readonly path?: string;

  constructor(options: { spec: string; dataset: string; reason: string; path?: string; cause?: unknown }) {
    super({
      name: "EvalFunctionError",
      message: `${EVAL_FUNCTION_FLAG} "${options.spec}" (eval dataset "${options.dataset}"): ${options.reason}`,
      cause: options.cause,
    });
    this.spec = options.spec;
    this.dataset = options.dataset;
    if (options.path !== undefined) this.path = options.path;
  }

  /** True for any `EvalFunctionError`, from any copy of this package. */
  static override isInstance(error: unknown): error is EvalFunctionError {
    return hasMarker(error, marker);
  }
}
