/**
 * Formats a calculator result: integers as written (`24`), other values rounded to 12 significant
 * digits with no trailing zeros (`0.1+0.2` → `0.3`, `1/3` → `0.333333333333`).
 */
export function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(12)));
}
