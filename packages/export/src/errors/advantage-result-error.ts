import { FieldError, hasMarker } from "@relax/chat";

const name = "AdvantageResultError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A custom advantage function returned something other than `null` or a list aligned with the sampled
 * Group (`[{contextName: finiteNumber}]`). `path` names the offending value, e.g. `result[1].searcher_0`.
 * The export pipeline turns it into a dropped Group (reason `advantage_function_error`).
 */
export class AdvantageResultError extends FieldError {
  readonly [symbol] = true;

  constructor({ path, reason, cause }: { path: string; reason: string; cause?: unknown }) {
    super({ name, path, reason, cause });
  }

  /** True for any `AdvantageResultError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is AdvantageResultError {
    return hasMarker(error, marker);
  }
}
