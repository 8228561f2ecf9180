import { FieldError } from "../errors/field-error";
import { hasMarker } from "../errors/relax-error";

const name = "InvalidParserInputError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/** A `parseAssistantOutput` option of the wrong shape; `path` names the option (e.g. `finishReason`). */
export class InvalidParserInputError extends FieldError {
  readonly [symbol] = true;

  constructor({ path, reason, cause }: { path: string; reason: string; cause?: unknown }) {
    super({ name, path, reason, cause });
  }

  /** True for any `InvalidParserInputError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is InvalidParserInputError {
    return hasMarker(error, marker);
  }
}
