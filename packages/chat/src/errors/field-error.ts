import { hasMarker, RelaxError } from "./relax-error";

const marker = "relax.error.FieldError";
const symbol = Symbol.for(marker);

/**
 * Base of every error about one input field: `path` names the field in the caller's terms
 * (`messages[3].tool_calls[0].id`, `outputIds[2]`, `tools[1]`), `reason` says what is wrong, and the
 * message reads `path: reason`. Subclasses add their own marker and name (`CanonicalizationError`,
 * `ForestInputError`, `InvalidParserInputError`, `RewardValueError`, …).
 */
export class FieldError extends RelaxError {
  readonly [symbol] = true;
  /** Field path of the offending value. */
  readonly path: string;
  /** The message without the path prefix. */
  readonly reason: string;

  constructor({
    name,
    path,
    reason,
    cause,
  }: { name: string; path: string; reason: string; cause?: unknown }) {
    super({ name, message: `${path}: ${reason}`, cause });
    this.path = path;
    this.reason = reason;
  }

  /** True for any field error of any Relax package, from any copy of it. */
  static override isInstance(error: unknown): error is FieldError {
    return hasMarker(error, marker);
  }
}
