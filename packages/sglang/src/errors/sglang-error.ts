import { hasMarker } from "./has-marker";

const marker = Symbol.for("relax.error.SglangError");

/**
 * Base class of every error thrown by `@relax/sglang`. Use `SglangError.isInstance(error)` rather than
 * `instanceof`: the marker is a global symbol, so the check also works across two bundled copies.
 */
export class SglangError extends Error {
  readonly [marker] = true;
  override readonly name: string = "SglangError";

  constructor({ message, cause }: { message: string; cause?: unknown }) {
    super(message, cause === undefined ? undefined : { cause });
  }

  /**
   * Whether sending the same request again could succeed. Only control calls are ever retried
   * automatically; `/generate` never is.
   */
  get isRetryable(): boolean {
    return false;
  }

  /** True for any error thrown by `@relax/sglang`, including one from another copy of this package. */
  static isInstance(error: unknown): error is SglangError {
    return hasMarker(error, marker);
  }
}
