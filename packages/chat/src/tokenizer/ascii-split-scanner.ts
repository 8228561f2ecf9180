/**
 * An exact, allocation-free replacement for one `Split` regex of the pre-tokenizer on ASCII text: the
 * pattern Qwen2/2.5/3 and Llama 3/3.1 share (Llama's digits in runs of up to three, Qwen's one by one),
 * as `@huggingface/tokenizers` 0.2 compiles it:
 *
 * ```text
 * (?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])   A1 contraction
 * |[^\r\n\p{L}\p{N}]?\p{L}+                                   A2 word, with one leading non-letter
 * |\p{N} (Qwen) or \p{N}{1,3} (Llama)                         A3 digits
 * | ?[^\p{White_Space}\p{L}\p{N}]+[\r\n]*                     A4 punctuation run, then newlines
 * |\p{White_Space}*[\r\n]+                                    A5 whitespace up to its last newline
 * |\p{White_Space}+(?!\P{White_Space})                        A6 whitespace but the last one
 * |\p{White_Space}+                                           A7 whitespace
 * ```
 *
 * The regex costs one `exec` per pre-token (≈ 60–100 ns in V8, a match array each); the scanner reads
 * the characters once with a class table. Restricted to ASCII the classes are exact: `\p{L}` is
 * `[A-Za-z]`, `\p{N}` is `[0-9]`, `\p{White_Space}` is `[\t\n\v\f\r ]`, and everything else is "other".
 * Whenever a decision would read a non-ASCII character, the scanner gives up on that position (returns
 * `-1`) and the caller runs the regex there: a match of this pattern depends only on the text from its
 * start (its one lookahead reads forward), so mixing the two position by position yields exactly the
 * regex's matches. The pattern matches at every position, so there are no gaps and no empty matches.
 */
export interface AsciiSplitScanner {
  /**
   * The end (exclusive, UTF-16 index) of the pattern's match at `start` in the text whose UTF-16 code
   * units are `units[0..length)`, or `-1` when deciding it would read a non-ASCII character (the caller
   * then runs the regex at `start`). A match it returns holds ASCII characters only.
   *
   * @param units - the text's code units ({@link writeCodeUnits}); read up to `length` only.
   * @param start - an index with `start < length`, where the previous match ended.
   * @param length - the text's length in code units.
   */
  matchEnd(units: Uint16Array, start: number, length: number): number;
}

/**
 * The UTF-16 code units of `text` in `scratch` when it is long enough, else in a new array: a typed array
 * is read ≈ 4× faster than `charCodeAt` on a string (which checks the string's representation on every
 * call), and Node writes it natively (`Buffer#write`, `utf16le`).
 *
 * @returns the array holding `text.length` code units from index 0 (`scratch` or a new one).
 */
export function writeCodeUnits(text: string, scratch?: Uint16Array): Uint16Array {
  const units =
    scratch !== undefined && scratch.length >= text.length ? scratch : new Uint16Array(text.length);
  Buffer.from(units.buffer, units.byteOffset, text.length * 2).write(text, 0, "utf16le");
  return units;
}

/** Whether a `Uint16Array` reads `utf16le` bytes as code units (every platform Node ships for but s390x). */
const LITTLE_ENDIAN = new Uint16Array(new Uint8Array([1, 0]).buffer)[0] === 1;

/** The library's compiled source of the shared pattern, with `DIGITS` for alternative A3. */
const PATTERN_SOURCE =
  "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|DIGITS| ?[^\\p{White_Space}\\p{L}\\p{N}]+[\\r\\n]*|\\p{White_Space}*[\\r\\n]+|\\p{White_Space}+(?!\\P{White_Space})|\\p{White_Space}+";

/** Character classes of the scanner (ASCII only). */
const OTHER = 0;
const LETTER = 1;
const DIGIT = 2;
/** White space other than `\r` and `\n`: `\t`, `\v`, `\f` and the space. */
const BLANK = 3;
const NEWLINE = 4;
/** A class for a non-ASCII code unit: the scanner gives up. */
const OUTSIDE = 5;

/** The class of every code unit: ASCII ones by the table below, every other one {@link OUTSIDE}. */
const CLASSES = new Uint8Array(0x10000).fill(OUTSIDE);
for (let code = 0; code < 128; code++) {
  if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) CLASSES[code] = LETTER;
  else if (code >= 0x30 && code <= 0x39) CLASSES[code] = DIGIT;
  else if (code === 0x0a || code === 0x0d) CLASSES[code] = NEWLINE;
  else if (code === 0x09 || code === 0x0b || code === 0x0c || code === 0x20) CLASSES[code] = BLANK;
  else CLASSES[code] = OTHER;
}

function classAt(units: Uint16Array, index: number): number {
  return CLASSES[units[index] as number] as number;
}

/**
 * The scanner for `pattern` when it is, exactly, the shared Qwen / Llama 3 split pattern (source and
 * flags `gu`); `undefined` for any other pattern, and on a big-endian machine, where
 * {@link writeCodeUnits} would not give code units (the caller keeps the regex).
 */
export function createAsciiSplitScanner(pattern: RegExp): AsciiSplitScanner | undefined {
  if (pattern.flags !== "gu" || !LITTLE_ENDIAN) return undefined;
  let digits: number;
  if (pattern.source === PATTERN_SOURCE.replace("DIGITS", "\\p{N}")) digits = 1;
  else if (pattern.source === PATTERN_SOURCE.replace("DIGITS", "\\p{N}{1,3}")) digits = 3;
  else return undefined;
  return { matchEnd: (units, start, length) => matchEnd(units, start, length, digits) };
}

function matchEnd(text: Uint16Array, start: number, length: number, digits: number): number {
  const first = classAt(text, start);
  if (first === OUTSIDE) return -1;
  // A1: a contraction (the apostrophe is "other").
  if (text[start] === 0x27 && start + 1 < length) {
    const end = contractionEnd(text, start, length);
    if (end > 0) return end;
  }
  // A2: letters, or one character that is neither a letter, a digit nor a newline, then letters.
  if (first === LETTER) return letterRunEnd(text, start + 1, length);
  const second = start + 1 < length ? classAt(text, start + 1) : NEWLINE;
  if (first !== DIGIT && first !== NEWLINE) {
    if (second === OUTSIDE) return -1;
    if (second === LETTER) return letterRunEnd(text, start + 2, length);
  }
  // A3: a digit, or a run of up to three.
  if (first === DIGIT) return digitRunEnd(text, start, length, digits);
  // A4: an optional space, then "other" characters, then newlines.
  if (first === OTHER || (text[start] === 0x20 && second === OTHER))
    return punctuationRunEnd(text, first === OTHER ? start + 1 : start + 2, length);
  return whitespaceEnd(text, start, length);
}

/** The end of a contraction at `start` (an apostrophe), or `-1`. */
function contractionEnd(text: Uint16Array, start: number, length: number): number {
  const next = (text[start + 1] as number) | 0x20;
  if (next === 0x73 || next === 0x74 || next === 0x6d || next === 0x64) return start + 2; // s t m d
  if (start + 2 >= length) return -1;
  const third = (text[start + 2] as number) | 0x20;
  if ((next === 0x72 || next === 0x76) && third === 0x65) return start + 3; // re ve
  if (next === 0x6c && third === 0x6c) return start + 3; // ll
  return -1;
}

function letterRunEnd(text: Uint16Array, from: number, length: number): number {
  let index = from;
  for (; index < length; index++) {
    const kind = classAt(text, index);
    if (kind === OUTSIDE) return -1;
    if (kind !== LETTER) break;
  }
  return index;
}

function digitRunEnd(text: Uint16Array, start: number, length: number, digits: number): number {
  let index = start + 1;
  for (; index < length && index - start < digits; index++) {
    const kind = classAt(text, index);
    if (kind === OUTSIDE) return -1;
    if (kind !== DIGIT) break;
  }
  return index;
}

/** `[^\p{White_Space}\p{L}\p{N}]*[\r\n]*` from `from` (the run's first character is already read). */
function punctuationRunEnd(text: Uint16Array, from: number, length: number): number {
  let index = from;
  for (; index < length; index++) {
    const kind = classAt(text, index);
    if (kind === OUTSIDE) return -1;
    if (kind !== OTHER) break;
  }
  for (; index < length; index++) {
    const kind = classAt(text, index);
    if (kind === OUTSIDE) return -1;
    if (kind !== NEWLINE) break;
  }
  return index;
}

/**
 * A5–A7 on the white-space run at `start`: up to and including its last newline if it has one; else the
 * whole run at the end of the text; else all but its last character when it has two or more; else the
 * one character.
 */
function whitespaceEnd(text: Uint16Array, start: number, length: number): number {
  let end = start;
  let lastNewline = -1;
  for (; end < length; end++) {
    const kind = classAt(text, end);
    if (kind === OUTSIDE) return -1;
    if (kind === NEWLINE) lastNewline = end;
    else if (kind !== BLANK) break;
  }
  if (lastNewline >= 0) return lastNewline + 1;
  if (end === length || end - start < 2) return end;
  return end - 1;
}
