/**
 * The Relax error contract, privately copied here because `@relax/sglang` depends on no other Relax
 * package (the canonical one is `hasMarker` / `RelaxError` in `@relax/chat`; the symbols are the same, so
 * `RelaxError.isInstance` is true for every error of this package):
 * - every error carries `Symbol.for("relax.error")` ({@link relaxErrorSymbol});
 * - each class adds `Symbol.for("relax.error.<Name>")`, checked by its static `isInstance`.
 */
export const relaxErrorSymbol: unique symbol = Symbol.for("relax.error") as never;

/** True when `value` is an object whose `Symbol.for(marker)` property is `true`. */
export function hasMarker(value: unknown, marker: string): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[Symbol.for(marker)] === true
  );
}
