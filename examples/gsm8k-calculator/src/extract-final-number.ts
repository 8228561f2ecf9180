const MARKED = /####\s*\$?\s*(-?[\d,]*\.?\d+)/g;
const ANY_NUMBER = /-?\d[\d,]*(?:\.\d+)?|-?\.\d+/g;

/**
 * Extracts the final numeric answer from a model's reply: the number after the last `#### ` marker,
 * or else the last number in the text. Commas and `$` are dropped (`#### $1,200` → `"1200"`).
 * @returns The number as a normalised string, or `null` when the text has no number.
 */
export function extractFinalNumber(text: string): string | null {
  const marked = [...text.matchAll(MARKED)].at(-1)?.[1];
  const raw = marked ?? [...text.matchAll(ANY_NUMBER)].at(-1)?.[0];
  return raw === undefined ? null : normalizeNumber(raw);
}

/** Drops thousands separators and a leading `+`, and removes trailing zeros after a decimal point (`"72.50"` → `"72.5"`). */
export function normalizeNumber(raw: string): string {
  let text = raw.replace(/,/g, "").replace(/^\+/, "");
  if (text.includes(".")) text = text.replace(/0+$/, "").replace(/\.$/, "");
  if (text.startsWith(".")) text = `0${text}`;
  if (text.startsWith("-.")) text = `-0${text.slice(1)}`;
  return text === "-0" ? "0" : text;
}

/**
 * GSM8K reward: 1 when the predicted number equals the reference answer exactly (after normalising
 * commas and trailing zeros, compared as numbers), else 0. A missing prediction scores 0.
 */
export function scoreGsm8kAnswer({ predicted, answer }: { predicted: string | null; answer: string }): 0 | 1 {
  if (predicted === null) return 0;
  const a = Number(normalizeNumber(predicted));
  const b = Number(normalizeNumber(answer));
  return Number.isFinite(a) && a === b ? 1 : 0;
}
