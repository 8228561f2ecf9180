import { describe, expect, it } from "vitest";
import { AsciiPreTokenTrie } from "../src/tokenizer/ascii-pre-token-trie";
import { writeCodeUnits } from "../src/tokenizer/ascii-split-scanner";
import { seededRandom } from "./seeded-random";

/** The trie's ids for `text[start..end)`. */
function lookup(trie: AsciiPreTokenTrie, text: string, start = 0, end = text.length) {
  return trie.get(writeCodeUnits(text), start, end);
}

describe("AsciiPreTokenTrie", () => {
  it("should find exactly the pre-tokens it holds, where they lie in a text", () => {
    const trie = new AsciiPreTokenTrie(100);
    const units = writeCodeUnits(" the theme them");
    trie.set(units, 0, 4, 279); // " the"
    trie.set(units, 4, 10, [1, 2]); // " theme"
    expect(lookup(trie, " the")).toBe(279);
    expect(lookup(trie, "x the theme", 1, 5)).toBe(279);
    expect(lookup(trie, " theme")).toEqual([1, 2]);
    // Prefixes and extensions of held pre-tokens are not held.
    expect(lookup(trie, " th")).toBeUndefined();
    expect(lookup(trie, " them")).toBeUndefined();
    expect(lookup(trie, " theme!")).toBeUndefined();
    expect(lookup(trie, " The")).toBeUndefined();
    expect(trie.size).toBe(2);
    // Setting a held pre-token again replaces its ids.
    trie.set(units, 0, 4, 7);
    expect(lookup(trie, " the")).toBe(7);
    expect(trie.size).toBe(2);
  });

  it("should agree with a Map over 20,000 seeded random ASCII pre-tokens, through its growth", () => {
    const random = seededRandom(11);
    const trie = new AsciiPreTokenTrie(1 << 20);
    const reference = new Map<string, number | number[]>();
    const word = () =>
      Array.from({ length: 1 + Math.floor(random() * 9) }, () =>
        String.fromCharCode(Math.floor(random() * 128)),
      ).join("");
    for (let i = 0; i < 20_000; i++) {
      const text = word();
      const ids = i % 5 === 0 ? [i, i + 1] : i;
      trie.set(writeCodeUnits(text), 0, text.length, ids);
      reference.set(text, ids);
    }
    expect(trie.size).toBe(reference.size);
    for (const [text, ids] of reference) expect(lookup(trie, text), JSON.stringify(text)).toEqual(ids);
    for (let i = 0; i < 20_000; i++) {
      const text = word();
      expect(lookup(trie, text)).toEqual(reference.get(text));
    }
  });

  it("should empty itself before passing its entry or node bound", () => {
    const byEntries = new AsciiPreTokenTrie(3);
    for (const text of ["a", "b", "c"]) byEntries.set(writeCodeUnits(text), 0, 1, 1);
    expect(byEntries.size).toBe(3);
    byEntries.set(writeCodeUnits("d"), 0, 1, 4);
    expect(byEntries.size).toBe(1);
    expect(lookup(byEntries, "a")).toBeUndefined();
    expect(lookup(byEntries, "d")).toBe(4);
    // Nodes: the root and one per character; "abcdef" needs 7, more than the bound of 6 allows.
    const byNodes = new AsciiPreTokenTrie(100, 6);
    byNodes.set(writeCodeUnits("abcde"), 0, 5, 1);
    expect(lookup(byNodes, "abcde")).toBe(1);
    byNodes.set(writeCodeUnits("xy"), 0, 2, 2);
    expect(lookup(byNodes, "abcde")).toBeUndefined();
    expect(lookup(byNodes, "xy")).toBe(2);
    expect(() => new AsciiPreTokenTrie(1, 2 ** 24 + 1)).toThrow(RangeError);
  });
});
