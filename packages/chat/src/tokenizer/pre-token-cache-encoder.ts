import type { Tokenizer } from "@huggingface/tokenizers";
import { AsciiPreTokenTrie } from "./ascii-pre-token-trie";
import { type AsciiSplitScanner, createAsciiSplitScanner, writeCodeUnits } from "./ascii-split-scanner";

/** Pre-tokens of at most this many UTF-16 code units have their ids cached (the library caches BPE
 * results up to the same length). */
export const MAX_CACHED_PRE_TOKEN_CHARS = 256;

/** Cached pre-tokens per encoder and kind (ASCII ones, the others); a cache is emptied when it would hold more. */
export const MAX_CACHED_PRE_TOKENS = 32_768;

/**
 * The longest text whose code units go to the encoder's reused scratch array (2 bytes a unit: 32 KiB,
 * what an observation delta needs); a longer one gets an array of its own, freed with it, so an encoder
 * does not keep the size of the largest prompt it ever saw.
 */
const MAX_SCRATCH_UNITS = 16 * 1024;

/** The parts of an `@huggingface/tokenizers` 0.2 `Tokenizer` the fast path reads (checked at build). */
interface LibraryParts {
  normalizer: ((text: string) => string) | null;
  pre_tokenizer: { tokenizers?: unknown[] } | null;
  model: ((pieces: string[]) => string[]) & {
    tokens_to_ids: Map<string, number>;
    unk_token_id?: number;
    fuse_unk?: boolean;
  };
  post_processor: ((tokens: string[], pair: null, addSpecialTokens: boolean) => { tokens: string[] }) | null;
  added_tokens: { lstrip?: boolean; rstrip?: boolean }[];
  added_tokens_map: Map<string, { id: number }>;
  splitter_unnormalized: LibrarySplitter;
  splitter_normalized: LibrarySplitter;
  remove_space?: boolean;
  do_lowercase_and_remove_accent?: boolean;
}

/** The library's added-token splitter: a trie of UTF-16 code units, `end` holding the word ending there. */
interface LibrarySplitter {
  split(text: string): string[];
  trie?: TrieNode;
}

interface TrieNode {
  [unit: string]: TrieNode | string | undefined;
}

/**
 * The library's added-token split (at each position the longest added token starting there, else the
 * next position; the gaps and the tokens in order) over the same trie, jumping with one regex to the
 * next position where a token can start instead of visiting every code unit.
 */
class AddedTokenSplitter {
  readonly #trie: TrieNode;
  readonly #starts: RegExp | undefined;

  constructor(trie: TrieNode) {
    this.#trie = trie;
    const units = Object.keys(trie).filter((key) => key.length === 1);
    this.#starts =
      units.length === 0
        ? undefined
        : new RegExp(
            `[${units.map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}]`,
            "g",
          );
  }

  /** `text` cut at its added tokens: `[gap, token, gap, …]`, empty gaps left out. */
  split(text: string): string[] {
    const starts = this.#starts;
    if (starts === undefined) return [text];
    const parts: string[] = [];
    let gapStart = 0;
    starts.lastIndex = 0;
    for (let found = starts.exec(text); found !== null; found = starts.exec(text)) {
      const token = this.#longestAt(text, found.index);
      if (token === undefined) continue;
      if (found.index > gapStart) parts.push(text.slice(gapStart, found.index));
      parts.push(token);
      gapStart = found.index + token.length;
      starts.lastIndex = gapStart;
    }
    if (gapStart < text.length) parts.push(gapStart === 0 ? text : text.slice(gapStart));
    return parts;
  }

  #longestAt(text: string, index: number): string | undefined {
    let node: TrieNode | undefined = this.#trie;
    let token: string | undefined;
    for (let j = index; j < text.length; j++) {
      const next: TrieNode | string | undefined = node[text[j] as string];
      if (next === undefined || typeof next === "string") break;
      node = next;
      if (typeof node.end === "string") token = node.end;
    }
    return token;
  }
}

interface SplitStage {
  pattern: RegExp;
}

interface ByteLevelStage {
  pre_tokenize_text(text: string): string[];
}

/** The pre-tokenizer configuration of `tokenizer.json` the fast path accepts. */
interface PreTokenizerJson {
  type?: string;
  pretokenizers?: {
    type?: string;
    behavior?: string;
    invert?: boolean;
    add_prefix_space?: boolean;
    use_regex?: boolean;
  }[];
}

/**
 * A byte-level BPE encoder giving exactly `@huggingface/tokenizers`' ids (`add_special_tokens: false`),
 * with each pre-token's ids cached: the library maps every pre-token through `TextEncoder` and a
 * byte table and allocates several arrays per token (≈ 2.5–5 µs per token on this project's 2-core
 * machines), while a text of repeated words (an agent's context) costs here one regex step and one
 * map lookup per pre-token (≈ 0.1–0.2 µs per token).
 *
 * Exact by construction, because the library's own pieces do every step that decides an id:
 * its added-token splitters, its normaliser, its compiled split regexes, its byte-level pre-tokenizer
 * and its BPE model (on a cache miss). What this class does itself is the iteration that the library's
 * Sequence pre-tokenizer does (split `Isolated`: the gaps between matches and the matches, in order,
 * empty strings dropped; each later stage applied to each piece of the earlier one) and the id lookup
 * (added token, else vocabulary, else the unknown id). One exception, for speed: the split pattern
 * Qwen and Llama 3 share is run on ASCII text by an {@link AsciiSplitScanner} (its classes are exact
 * there; it hands every position that would read a non-ASCII character to the library's regex), which
 * is checked against the regex on every string of up to four characters over the pattern's classes
 * (`test/ascii-split-scanner.test.ts`) and makes a 128k-token first prompt ≈ 1.3× faster to encode.
 *
 * Built only for the shape shared by Qwen, Llama 3, DeepSeek V3 and gpt-oss tokenizers: a BPE model
 * without `fuse_unk`, a `Sequence` pre-tokenizer of one or more `Split` (`Isolated`, not inverted) then
 * one `ByteLevel` (`add_prefix_space: false`, `use_regex: false`), a post-processor that adds nothing
 * without special tokens, no `lstrip`/`rstrip` added token and no `remove_space` or lowercasing option;
 * {@link createPreTokenCacheEncoder} returns `undefined` for anything else (the library is then used).
 */
export class PreTokenCacheEncoder {
  readonly #library: LibraryParts;
  readonly #unnormalized: AddedTokenSplitter;
  readonly #normalized: AddedTokenSplitter;
  readonly #splits: RegExp[];
  /** Each of {@link #splits} with flag `y` instead of `g`: a match exactly at `lastIndex`. */
  readonly #stickySplits: RegExp[];
  /** Per stage, the ASCII scanner of its pattern when {@link createAsciiSplitScanner} knows it. */
  readonly #scanners: (AsciiSplitScanner | undefined)[];
  readonly #byteLevel: ByteLevelStage;
  /** Pre-token → its ids: a single id as a number (most pre-tokens), else the list. */
  readonly #cache = new Map<string, number | readonly number[]>();
  /** The ids of the ASCII pre-tokens a scanner matched, found by their code units (no string cut). */
  readonly #asciiCache = new AsciiPreTokenTrie(MAX_CACHED_PRE_TOKENS);
  /** Code units of the text a scanner reads, reused from call to call (up to {@link MAX_SCRATCH_UNITS}). */
  #scratch = new Uint16Array(1024);
  readonly #unknownId: number | undefined;
  /** Whether the normaliser is exactly Unicode NFC (`{"type": "NFC"}`: Qwen2/2.5/3). */
  readonly #nfc: boolean;
  /** Characters of uncached pre-tokens the running {@link encodeWithin} may still encode. */
  #missBudget = Number.POSITIVE_INFINITY;

  /** Use {@link createPreTokenCacheEncoder}. */
  constructor(library: LibraryParts, splits: RegExp[], byteLevel: ByteLevelStage, nfc = false) {
    this.#library = library;
    this.#unnormalized = new AddedTokenSplitter(library.splitter_unnormalized.trie as TrieNode);
    this.#normalized = new AddedTokenSplitter(library.splitter_normalized.trie as TrieNode);
    this.#splits = splits;
    this.#stickySplits = splits.map((split) => new RegExp(split.source, `${split.flags.replace("g", "")}y`));
    this.#scanners = splits.map((split) => createAsciiSplitScanner(split));
    this.#byteLevel = byteLevel;
    this.#unknownId = library.model.unk_token_id;
    this.#nfc = nfc;
  }

  /** Pre-tokens whose ids are cached now. */
  get cachedPreTokens(): number {
    return this.#cache.size + this.#asciiCache.size;
  }

  /**
   * {@link encode} within a bound on the expensive part: `undefined` (nothing cached is lost) as soon as
   * the uncached pre-tokens, which go through the library's BPE (≈ 5 µs per token, more for long ones),
   * would exceed `missedChars` characters in all. Cache hits cost ≈ 0.1 µs per token and are not
   * counted. The gateway encodes a large text on its event loop this way and hands it to a worker only
   * when the bound is hit, so a text of new words cannot stall the loop.
   */
  encodeWithin(text: string, missedChars: number): number[] | undefined {
    this.#missBudget = missedChars;
    try {
      return this.encode(text);
    } catch (error) {
      if (error === OVER_BUDGET) return undefined;
      throw error;
    } finally {
      this.#missBudget = Number.POSITIVE_INFINITY;
    }
  }

  /** Ids of `text` with no special tokens added: `tokenizer.encode(text, { add_special_tokens: false }).ids`. */
  encode(text: string): number[] {
    const out: number[] = [];
    const library = this.#library;
    for (const section of this.#unnormalized.split(text)) {
      if (section.length === 0) continue;
      const added = library.added_tokens_map.get(section);
      if (added !== undefined) {
        out.push(added.id);
        continue;
      }
      const normalized = this.#normalize(section);
      if (normalized.length === 0) continue;
      for (const part of this.#normalized.split(normalized)) {
        if (part.length === 0) continue;
        const addedPart = library.added_tokens_map.get(part);
        if (addedPart !== undefined) out.push(addedPart.id);
        else this.#split(part, 0, out);
      }
    }
    return out;
  }

  /**
   * The library's normaliser applied to `section`, except that an NFC normaliser is skipped for a text
   * whose code units are all below U+0300: every such text is already in NFC, because every character
   * below U+0300 has `NFC_Quick_Check=Yes` and canonical combining class 0, for which the quick check of
   * UAX #15 answers YES (so `normalize("NFC")` returns the text unchanged; checked against V8's
   * `normalize` for every character and every pair below U+0300 in `test/pre-token-cache-encoder.test.ts`). On a one-byte string (Latin-1) the check is free
   * (V8 knows the class cannot match); `normalize` copies the text (≈ 1 ms for a 128k-token prompt).
   */
  #normalize(section: string): string {
    const normalizer = this.#library.normalizer;
    if (normalizer === null) return section;
    if (this.#nfc && !FROM_U0300.test(section)) return section;
    return normalizer(section);
  }

  /**
   * Splits `text` with stage `stage`'s regex (`Isolated`): every gap and every non-empty match, in order.
   * A stage with an {@link AsciiSplitScanner} (Qwen's and Llama 3's pattern) reads ASCII text with it and
   * runs the regex only at positions the scanner declines; see {@link #scanSplit}.
   */
  #split(text: string, stage: number, out: number[]): void {
    const scanner = this.#scanners[stage];
    if (scanner !== undefined) {
      this.#scanSplit(text, stage, scanner, out);
      return;
    }
    const pattern = this.#splits[stage] as RegExp;
    const last = stage + 1 === this.#splits.length;
    pattern.lastIndex = 0;
    let previous = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const start = match.index;
      const piece = match[0];
      if (previous < start) this.#emit(text.slice(previous, start), stage, out);
      if (piece.length === 0) pattern.lastIndex = advance(text, pattern.lastIndex);
      else if (!last) this.#split(piece, stage + 1, out);
      else {
        // The hot path, inlined: a cached single-id pre-token.
        const cached = this.#cache.get(piece);
        if (typeof cached === "number") out.push(cached);
        else this.#emitIds(piece, cached, out);
      }
      previous = start + piece.length;
    }
    if (previous < text.length) this.#emit(previous === 0 ? text : text.slice(previous), stage, out);
  }

  /**
   * {@link #split} for a stage whose pattern matches at every position (no gaps, no empty matches): each
   * match starts where the previous one ended, and is the scanner's or, where the scanner would read a
   * non-ASCII character, the sticky regex's at that position (the match a global scan finds there).
   */
  #scanSplit(text: string, stage: number, scanner: AsciiSplitScanner, out: number[]): void {
    const sticky = this.#stickySplits[stage] as RegExp;
    const last = stage + 1 === this.#splits.length;
    const length = text.length;
    // A later stage with a scanner of its own would overwrite the shared scratch: it gets its own array.
    const units = last ? this.#unitsOf(text) : writeCodeUnits(text);
    const ascii = this.#asciiCache;
    let position = 0;
    while (position < length) {
      const end = scanner.matchEnd(units, position, length);
      if (end < 0) {
        sticky.lastIndex = position;
        // Unreachable for the accepted patterns (they match every character); a loud guard, not a gap.
        if (!sticky.test(text) || sticky.lastIndex === position)
          throw new Error(`pre-tokenizer stage ${stage} did not match at ${position}`);
        const stickyEnd = sticky.lastIndex;
        this.#emit(stickyEnd - position === length ? text : text.slice(position, stickyEnd), stage, out);
        position = stickyEnd;
        continue;
      }
      if (!last) {
        this.#split(end - position === length ? text : text.slice(position, end), stage + 1, out);
      } else {
        // The hot path: a cached ASCII pre-token, found by its code units.
        const cached = ascii.get(units, position, end);
        if (typeof cached === "number") out.push(cached);
        else if (cached !== undefined) pushIds(cached, out);
        else this.#emitAscii(text, units, position, end, out);
      }
      position = end;
    }
  }

  /** The code units of `text` in the reused scratch array (a fresh one past {@link MAX_SCRATCH_UNITS}). */
  #unitsOf(text: string): Uint16Array {
    if (text.length > MAX_SCRATCH_UNITS) return writeCodeUnits(text);
    if (text.length > this.#scratch.length) {
      this.#scratch = new Uint16Array(
        Math.min(MAX_SCRATCH_UNITS, Math.max(text.length, this.#scratch.length * 2)),
      );
    }
    return writeCodeUnits(text, this.#scratch);
  }

  /** {@link #emitIds} for an uncached ASCII pre-token `text[start..end)`, cached in the trie. */
  #emitAscii(text: string, units: Uint16Array, start: number, end: number, out: number[]): void {
    const piece = end - start === text.length ? text : text.slice(start, end);
    const ids = this.#encodeMiss(piece);
    if (piece.length <= MAX_CACHED_PRE_TOKEN_CHARS) this.#asciiCache.set(units, start, end, ids);
    pushIds(ids, out);
  }

  #emit(piece: string, stage: number, out: number[]): void {
    if (stage + 1 < this.#splits.length) this.#split(piece, stage + 1, out);
    else this.#emitIds(piece, this.#cache.get(piece), out);
  }

  /** Appends the ids of the last stage's `piece`, encoding and caching them when `cached` is missing. */
  #emitIds(piece: string, cached: number | readonly number[] | undefined, out: number[]): void {
    let ids = cached;
    if (ids === undefined) {
      ids = this.#encodeMiss(piece);
      if (piece.length <= MAX_CACHED_PRE_TOKEN_CHARS) {
        if (this.#cache.size >= MAX_CACHED_PRE_TOKENS) this.#cache.clear();
        this.#cache.set(ownCopy(piece), ids);
      }
    }
    pushIds(ids, out);
  }

  /**
   * The ids of an uncached pre-token (a number for a single id), charged to the running
   * {@link encodeWithin}'s bound.
   */
  #encodeMiss(piece: string): number | readonly number[] {
    if (piece.length > this.#missBudget) throw OVER_BUDGET;
    this.#missBudget -= piece.length;
    const encoded = this.#encodePreToken(piece);
    return encoded.length === 1 ? (encoded[0] as number) : encoded;
  }

  /** The library's byte-level mapping and BPE of one pre-token, and its id lookup. */
  #encodePreToken(piece: string): number[] {
    const library = this.#library;
    const tokens = library.model(this.#byteLevel.pre_tokenize_text(piece));
    const ids: number[] = [];
    for (const token of tokens) {
      const id =
        library.added_tokens_map.get(token)?.id ?? library.model.tokens_to_ids.get(token) ?? this.#unknownId;
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }
}

/** Appends a pre-token's ids (a number for a single id) to `out`. */
function pushIds(ids: number | readonly number[], out: number[]): void {
  if (typeof ids === "number") out.push(ids);
  else for (let i = 0; i < ids.length; i++) out.push(ids[i] as number);
}

/**
 * `text` as a string that holds its own characters. In V8 a slice of 13 or more code units is a view
 * that keeps the whole string it was cut from alive, so a cached pre-token cut from a 128k-token prompt
 * would keep that prompt in memory as long as the cache holds it (measured: 60 prompts of 0.46 MB, each
 * with one new long word, left 27 MB behind). Called on cache misses only.
 */
function ownCopy(text: string): string {
  if (text.length < 13) return text;
  const units = new Array<number>(text.length);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  return String.fromCharCode(...units);
}

/** A code unit at or above U+0300, where NFC may change a text (see `#normalize`). */
const FROM_U0300 = /[^\u0000-\u02ff]/;

/** Thrown inside {@link PreTokenCacheEncoder.encodeWithin} when the bound is hit; never escapes it. */
const OVER_BUDGET: unique symbol = Symbol("over budget");

/** The index after an empty match at `index`, as `String.prototype.matchAll` advances (by code point). */
function advance(text: string, index: number): number {
  if (index + 1 >= text.length) return index + 1;
  const first = text.charCodeAt(index);
  if (first < 0xd800 || first > 0xdbff) return index + 1;
  const second = text.charCodeAt(index + 1);
  return second >= 0xdc00 && second <= 0xdfff ? index + 2 : index + 1;
}

/**
 * A {@link PreTokenCacheEncoder} for `tokenizer`, built from `tokenizer.json`, or `undefined` when its
 * configuration is not the one the fast path reproduces exactly (the caller keeps the library's
 * `encode`). Reads the pinned `@huggingface/tokenizers` 0.2 instance's fields; a version whose fields
 * differ yields `undefined`, never a wrong id.
 *
 * @param tokenizer - the library instance built from `tokenizerJson`.
 * @param tokenizerJson - the parsed `tokenizer.json` (its `pre_tokenizer`, `normalizer` and `model` are read).
 */
export function createPreTokenCacheEncoder(
  tokenizer: Tokenizer,
  tokenizerJson: { pre_tokenizer?: unknown; normalizer?: unknown; model: { type?: string | undefined } },
): PreTokenCacheEncoder | undefined {
  const library = tokenizer as unknown as LibraryParts;
  const stages = acceptedStages(tokenizerJson);
  if (stages === undefined || !acceptedLibrary(library, tokenizerJson.model.type)) return undefined;
  const instances = library.pre_tokenizer?.tokenizers;
  if (!Array.isArray(instances) || instances.length !== stages) return undefined;
  const splits: RegExp[] = [];
  for (const instance of instances.slice(0, -1)) {
    const pattern = (instance as Partial<SplitStage>).pattern;
    if (!(pattern instanceof RegExp) || !pattern.global) return undefined;
    splits.push(new RegExp(pattern.source, pattern.flags));
  }
  const byteLevel = instances.at(-1) as Partial<ByteLevelStage>;
  if (typeof byteLevel.pre_tokenize_text !== "function") return undefined;
  return new PreTokenCacheEncoder(
    library,
    splits,
    byteLevel as ByteLevelStage,
    isNfc(library, tokenizerJson),
  );
}

/** Whether the normaliser is the library's Unicode NFC and nothing else (`{"type": "NFC"}`). */
function isNfc(library: LibraryParts, json: { normalizer?: unknown }): boolean {
  const config = json.normalizer as { type?: unknown } | null | undefined;
  const form = (library.normalizer as { form?: unknown } | null)?.form;
  return config?.type === "NFC" && Object.keys(config).length === 1 && form === "NFC";
}

/** The number of pre-tokenizer stages when `tokenizer.json` has the accepted shape. */
function acceptedStages(json: {
  pre_tokenizer?: unknown;
  model: { type?: string | undefined };
}): number | undefined {
  const preTokenizer = json.pre_tokenizer as PreTokenizerJson | null | undefined;
  const stages = preTokenizer?.type === "Sequence" ? preTokenizer.pretokenizers : undefined;
  if (json.model.type !== "BPE" || stages === undefined || stages.length < 2) return undefined;
  const last = stages.at(-1);
  if (last?.type !== "ByteLevel" || last.add_prefix_space === true || last.use_regex !== false)
    return undefined;
  const splitsOk = stages
    .slice(0, -1)
    .every((stage) => stage.type === "Split" && stage.behavior === "Isolated" && stage.invert === false);
  return splitsOk ? stages.length : undefined;
}

/** Whether the library instance has the fields and options the fast path reproduces. */
function acceptedLibrary(library: LibraryParts, modelType: string | undefined): boolean {
  if (modelType !== "BPE" || typeof library.model !== "function") return false;
  if (!(library.model.tokens_to_ids instanceof Map) || library.model.fuse_unk === true) return false;
  if (!(library.added_tokens_map instanceof Map) || !Array.isArray(library.added_tokens)) return false;
  if (library.added_tokens.some((token) => token.lstrip === true || token.rstrip === true)) return false;
  if (library.remove_space === true || library.do_lowercase_and_remove_accent === true) return false;
  if (!isTrie(library.splitter_unnormalized?.trie) || !isTrie(library.splitter_normalized?.trie))
    return false;
  if (library.normalizer !== null && typeof library.normalizer !== "function") return false;
  return postProcessorAddsNothing(library);
}

function isTrie(value: unknown): value is TrieNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether the post-processor, without special tokens, returns the tokens as they are. */
function postProcessorAddsNothing(library: LibraryParts): boolean {
  if (library.post_processor === null) return true;
  if (typeof library.post_processor !== "function") return false;
  const probe = ["a", "b", "c"];
  const { tokens } = library.post_processor(probe.slice(), null, false);
  return (
    Array.isArray(tokens) && tokens.length === probe.length && tokens.every((token, i) => token === probe[i])
  );
}
