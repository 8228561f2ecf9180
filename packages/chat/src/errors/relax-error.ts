const baseMarker = "relax.error";
const baseSymbol = Symbol.for(baseMarker);

/**
 * Base class of every typed Relax error. Each error carries global-symbol markers
 * (`Symbol.for("relax.error")` plus `Symbol.for("relax.error.<Name>")`), so `isInstance` works across
 * bundled copies of a package and across packages that do not import `@relax/chat` (they only need to
 * set the same symbols). `cause` is kept.
 *
 * Follows the marker pattern of vercel/ai `AISDKError` (see STYLE.md §13).
 *
 * @example
 * ```ts
 * try { await loadTokenizer("./model"); }
 * catch (error) { if (TokenizerLoadError.isInstance(error)) console.error(error.file); }
 * ```
 */
export class RelaxError extends Error {
  readonly [baseSymbol] = true;

  /**
   * @param options.name - the error's class name, also its marker suffix (`relax.error.<name>`).
   * @param options.message - human-readable message.
   * @param options.cause - the underlying error, when there is one.
   */
  constructor({ name, message, cause }: { name: string; message: string; cause?: unknown }) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = name;
  }

  /** True for any Relax error (anything carrying the `relax.error` marker), from any copy of any package. */
  static isInstance(error: unknown): error is RelaxError {
    return RelaxError.hasMarker(error, baseMarker);
  }

  /** True when `error` is an object carrying `Symbol.for(marker) === true`. */
  protected static hasMarker(error: unknown, marker: string): boolean {
    const symbol = Symbol.for(marker);
    return (
      error != null &&
      typeof error === "object" &&
      symbol in error &&
      (error as Record<symbol, unknown>)[symbol] === true
    );
  }
}
