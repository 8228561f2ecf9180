/**
 * The Relax error contract, privately copied here because `@relax/launcher` depends on no other Relax
 * package (the canonical one is `hasMarker` / `RelaxError` in `@relax/chat`; the symbols are the same, so
 * `RelaxError.isInstance` is true for every launcher error): every error carries
 * `Symbol.for("relax.error")`, and each class adds `Symbol.for("relax.error.<Name>")`, checked by its
 * static `isInstance`.
 */
const relaxErrorSymbol: unique symbol = Symbol.for("relax.error") as never;
const marker = "relax.error.LauncherError";
const symbol = Symbol.for(marker);

/**
 * Base class of every error thrown by `@relax/launcher`. Errors are recognised by global-symbol markers,
 * so `isInstance` works across duplicated package copies and other Relax packages recognise them without
 * importing this one.
 */
export class LauncherError extends Error {
  protected readonly [relaxErrorSymbol] = true;
  protected readonly [symbol] = true;

  constructor({ name, message, cause }: { name: string; message: string; cause?: unknown }) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = name;
  }

  /** True for any `@relax/launcher` error, whichever copy of the package threw it. */
  static isInstance(error: unknown): error is LauncherError {
    return hasMarker(error, marker);
  }
}

/** @internal True when `value` is an object whose `Symbol.for(marker)` property is `true`. */
export function hasMarker(value: unknown, marker: string): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[Symbol.for(marker)] === true
  );
}
