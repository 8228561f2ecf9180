import { FieldError } from "../errors/field-error";
import { hasMarker } from "../errors/relax-error";

const name = "CanonicalizationError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A request, record or dataset value that cannot be projected to the canonical form. `path` names the
 * offending field in the caller's terms (e.g. `messages[3].tool_calls[0].id`); `param` is the top-level
 * protocol parameter (e.g. `messages`) for OpenAI-style error bodies. Protocol layers turn it into a 400.
 */
export class CanonicalizationError extends FieldError {
  readonly [symbol] = true;
  /** The top-level request parameter the path starts with. */
  readonly param: string;

  constructor({ path, reason, cause }: { path: string; reason: string; cause?: unknown }) {
    super({ name, path, reason, cause });
    this.param = path.split(/[.[]/, 1)[0] ?? path;
  }

  /** True for any `CanonicalizationError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is CanonicalizationError {
    return hasMarker(error, marker);
  }
}
