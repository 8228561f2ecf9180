const baseMarker = "relax.error";
const baseSymbol = Symbol.for(baseMarker);

/**
 * True when `value` is an object whose `Symbol.for(marker)` property is `true`. The one marker check of
 * every Relax package: `@relax/sglang` and `@relax/launcher` keep a private copy with the same semantics,
 * because they depend on no other Relax package.
 *
 * @param marker - the marker's key, `"relax.error"` (any Relax error) or `"relax.error.<Name>"`.
 */
export function hasMarker(value: unknown, marker: string): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[Symbol.for(marker)] === true
  );
}

/**
 * Base class of every typed Relax error. Each error carries global-symbol markers
 * (`Symbol.for("relax.error")` plus `Symbol.for("relax.error.<Name>")` for its class and each ancestor),
 * so `isInstance` works across bundled copies of a package and across packages that do not import
 * `@relax/chat` (they only need to set the same symbols, as `@relax/sglang` and `@relax/launcher` do).
 * Constructors take one options object; `cause` is kept.
 *
 * Follows the marker pattern of vercel/ai `AISDKError`.
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
    return hasMarker(error, baseMarker);
  }

  /** True when `error` carries `Symbol.for(marker) === true`; see {@link hasMarker}. */
  protected static hasMarker(error: unknown, marker: string): boolean {
    return hasMarker(error, marker);
  }
}
