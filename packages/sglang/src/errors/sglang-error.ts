import { hasMarker, relaxErrorSymbol } from "./has-marker";

const marker = "relax.error.SglangError";
const symbol = Symbol.for(marker);

/**
 * Base class of every error thrown by `@relax/sglang`, and a Relax error (`Symbol.for("relax.error")`).
 * Use `SglangError.isInstance(error)` rather than `instanceof`: the marker is a global symbol, so the
 * check also works across two bundled copies.
 */
export class SglangError extends Error {
  readonly [relaxErrorSymbol] = true;
  readonly [symbol] = true;
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
