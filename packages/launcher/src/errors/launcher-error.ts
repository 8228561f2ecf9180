const rootMarker: unique symbol = Symbol.for("relax.error.RelaxError");
const marker: unique symbol = Symbol.for("relax.error.LauncherError");

/**
 * Base class of every error thrown by `@relax/launcher`. Errors are recognised by global-symbol markers
 * (`Symbol.for("relax.error.<Name>")`), so `isInstance` works across duplicated package copies and the
 * shared `relax.error.RelaxError` root marker lets other Relax packages recognise them without importing
 * this one.
 */
export class LauncherError extends Error {
  protected readonly [rootMarker] = true;
  protected readonly [marker] = true;

  constructor({ name, message, cause }: { name: string; message: string; cause?: unknown }) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = name;
  }

  /** True for any `@relax/launcher` error, whichever copy of the package threw it. */
  static isInstance(error: unknown): error is LauncherError {
    return hasMarker(error, marker);
  }
}

/** @internal True when `error` is an object carrying the given marker symbol. */
export function hasMarker(error: unknown, symbol: symbol): boolean {
  return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[symbol] === true;
}
