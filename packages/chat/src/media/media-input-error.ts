import { FieldError } from "../errors/field-error";
import { hasMarker } from "../errors/relax-error";

const name = "MediaInputError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * An image in a request or dataset value that cannot be used: a malformed `data:` URI, bytes that are
 * no image format, a URL that cannot be fetched, a size outside the processor's limits, or an image the
 * model's chat template cannot render. `path` names the content part in the caller's terms
 * (`messages[2].content[1]`); protocol layers answer 400.
 */
export class MediaInputError extends FieldError {
  readonly [symbol] = true;

  constructor({ path, reason, cause }: { path: string; reason: string; cause?: unknown }) {
    super({ name, path, reason, cause });
  }

  /** True for any `MediaInputError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is MediaInputError {
    return hasMarker(error, marker);
  }
}
