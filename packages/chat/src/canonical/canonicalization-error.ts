import { RelaxError } from "../errors/relax-error";

const marker = Symbol.for("relax.error.CanonicalizationError");

/**
 * A request, record or dataset value that cannot be projected to the canonical form. `path` names the
 * offending field in the caller's terms (e.g. `messages[3].tool_calls[0].id`); `param` is the top-level
 * protocol parameter (e.g. `messages`) for OpenAI-style error bodies. Protocol layers turn it into a 400.
 */
export class CanonicalizationError extends RelaxError {
  readonly [marker] = true;
  /** Field path of the offending value, e.g. `messages[1].tool_calls[0].function.arguments`. */
  readonly path: string;
  /** The top-level request parameter the path starts with. */
  readonly param: string;
  /** The message without the path prefix. */
  readonly reason: string;

  constructor({ path, reason, cause }: { path: string; reason: string; cause?: unknown }) {
    super({ name: "CanonicalizationError", message: `${path}: ${reason}`, cause });
    this.path = path;
    this.reason = reason;
    this.param = path.split(/[.[]/, 1)[0] ?? path;
  }

  /** True for any `CanonicalizationError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is CanonicalizationError {
    return RelaxError.hasMarker(error, "relax.error.CanonicalizationError");
  }
}
