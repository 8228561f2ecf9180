/**
 * True when `value` carries the global error marker `Symbol.for(name)`. Markers are global symbols, so the
 * check holds across bundled copies of `@relax/sglang` and across packages that share the scheme.
 */
export function hasMarker(value: unknown, marker: symbol): boolean {
  return typeof value === "object" && value !== null && marker in value;
}
