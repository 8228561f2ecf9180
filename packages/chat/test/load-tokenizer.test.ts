import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TokenizerLoadError } from "../src/errors/tokenizer-load-error";
import { loadTokenizer } from "../src/load-tokenizer";
import { createTokenizer } from "../src/tokenizer/create-tokenizer";
import { tinyTokenizerJson, writeTokenizerDir } from "./tiny-tokenizer";

async function loadError(source: string): Promise<TokenizerLoadError> {
  try {
    await loadTokenizer(source);
  } catch (error) {
    if (TokenizerLoadError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a TokenizerLoadError");
}

describe("loadTokenizer from a directory", () => {
  it("should read tokenizer.json, tokenizer_config.json, chat_template.jinja and generation_config.json", async () => {
    const directory = writeTokenizerDir({
      "tokenizer.json": tinyTokenizerJson,
      "tokenizer_config.json": { eos_token: "<eos>", chat_template: "from config" },
      "chat_template.jinja": "{{ messages[0].content }}",
      "generation_config.json": { eos_token_id: [3, 4] },
    });
    const tokenizer = await loadTokenizer(directory);
    expect(tokenizer.source).toBe(directory);
    expect(tokenizer.chatTemplate).toBe("{{ messages[0].content }}");
    expect(tokenizer.stopTokenIds).toEqual([3, 4]);
    expect(tokenizer.encode("hello <think>world<eos>")).toEqual([1, 5, 2, 3]);
    expect(tokenizer.decode([1, 3])).toBe("hello <eos>");
    expect(tokenizer.decode([1, 3], { skipSpecialTokens: true })).toBe("hello");
    expect(tokenizer.decode([])).toBe("");
    expect([...tokenizer.specialTokenIds]).toEqual([3, 4]);
    expect([...tokenizer.addedTokenIds]).toEqual([3, 4, 5]);
  });

  it("should cache one load per directory and not cache failures", async () => {
    const directory = writeTokenizerDir({ "tokenizer.json": tinyTokenizerJson, "tokenizer_config.json": {} });
    const first = loadTokenizer(directory);
    expect(loadTokenizer(`${directory}/`)).toBe(first);
    expect(await first).toBe(await loadTokenizer(directory));

    const broken = writeTokenizerDir({ "tokenizer.json": tinyTokenizerJson });
    await expect(loadTokenizer(broken)).rejects.toThrow(TokenizerLoadError);
    // The failed load is forgotten: the retry sees the file written afterwards.
    writeFileSync(join(broken, "tokenizer_config.json"), "{}");
    await expect(loadTokenizer(broken)).resolves.toBeDefined();
  });

  it("should take the template from chat_template.json, then from named templates in the config", async () => {
    const fromJson = await loadTokenizer(
      writeTokenizerDir({
        "tokenizer.json": tinyTokenizerJson,
        "tokenizer_config.json": { chat_template: "config" },
        "chat_template.json": { chat_template: "json" },
      }),
    );
    expect(fromJson.chatTemplate).toBe("json");
    const named = await loadTokenizer(
      writeTokenizerDir({
        "tokenizer.json": tinyTokenizerJson,
        "tokenizer_config.json": {
          chat_template: [
            { name: "default", template: "D" },
            { name: "tool_use", template: "T" },
          ],
        },
      }),
    );
    expect(named.chatTemplate).toBe("D");
    expect(named.chatTemplates).toEqual({ default: "D", tool_use: "T" });
  });
});

describe("loadTokenizer errors name the file", () => {
  it("should report a missing tokenizer.json", async () => {
    const directory = writeTokenizerDir({ "tokenizer_config.json": {} });
    const error = await loadError(directory);
    expect(error.reason).toBe("not_found");
    expect(error.file).toBe(join(directory, "tokenizer.json"));
    expect(error.message).toBe(`${join(directory, "tokenizer.json")}: not found`);
  });

  it("should report a missing tokenizer_config.json", async () => {
    const directory = writeTokenizerDir({ "tokenizer.json": tinyTokenizerJson });
    const error = await loadError(directory);
    expect([error.reason, error.file]).toEqual(["not_found", join(directory, "tokenizer_config.json")]);
  });

  it("should report malformed JSON with the parser's message", async () => {
    const directory = writeTokenizerDir({
      "tokenizer.json": tinyTokenizerJson,
      "tokenizer_config.json": '{"eos_token": ',
    });
    const error = await loadError(directory);
    expect([error.reason, error.file]).toEqual(["malformed_json", join(directory, "tokenizer_config.json")]);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it("should report a malformed optional generation_config.json", async () => {
    const directory = writeTokenizerDir({
      "tokenizer.json": tinyTokenizerJson,
      "tokenizer_config.json": {},
      "generation_config.json": "{oops}",
    });
    const error = await loadError(directory);
    expect([error.reason, error.file]).toEqual(["malformed_json", join(directory, "generation_config.json")]);
  });

  it("should report a tokenizer.json of the wrong shape, with the field", async () => {
    const directory = writeTokenizerDir({ "tokenizer.json": { model: {} }, "tokenizer_config.json": {} });
    const error = await loadError(directory);
    expect([error.reason, error.file]).toEqual(["invalid", join(directory, "tokenizer.json")]);
    expect(error.message).toContain("added_tokens");
  });

  it("should report a config field of the wrong type", async () => {
    const directory = writeTokenizerDir({
      "tokenizer.json": tinyTokenizerJson,
      "tokenizer_config.json": { eos_token: 7 },
    });
    const error = await loadError(directory);
    expect([error.reason, error.file]).toEqual(["invalid", join(directory, "tokenizer_config.json")]);
    expect(error.message).toContain("eos_token");
  });

  it("should report a tokenizer model @huggingface/tokenizers rejects", async () => {
    const directory = writeTokenizerDir({
      "tokenizer.json": { ...tinyTokenizerJson, model: { type: "NoSuchModel" } },
      "tokenizer_config.json": {},
    });
    const error = await loadError(directory);
    expect([error.reason, error.file]).toEqual(["invalid", join(directory, "tokenizer.json")]);
  });

  it("should report a chat_template.jinja that does not parse", async () => {
    const directory = writeTokenizerDir({
      "tokenizer.json": tinyTokenizerJson,
      "tokenizer_config.json": { chat_template: "{{ fine }}" },
      "chat_template.jinja": "{% for m in messages %}{{ m.content }}",
    });
    const error = await loadError(directory);
    expect([error.reason, error.file]).toEqual(["invalid", join(directory, "chat_template.jinja")]);
    expect(error.message).toContain('chat template "default"');
  });

  it("should report a config chat_template that does not parse", async () => {
    const directory = writeTokenizerDir({
      "tokenizer.json": tinyTokenizerJson,
      "tokenizer_config.json": { chat_template: [{ name: "tool_use", template: "{% if %}" }] },
    });
    const error = await loadError(directory);
    expect([error.reason, error.file]).toEqual(["invalid", join(directory, "tokenizer_config.json")]);
    expect(error.message).toContain('chat template "tool_use"');
  });

  it("should report a source that is neither a directory nor an installed package", async () => {
    for (const source of ["./no/such/dir", "@lenml/tokenizer-does-not-exist"]) {
      const error = await loadError(source);
      expect([error.reason, error.file]).toEqual(["not_found", source]);
    }
  });
});

describe("createTokenizer", () => {
  it("should build synchronously from parsed JSON and name bare files in errors", () => {
    const tokenizer = createTokenizer({
      tokenizerJson: tinyTokenizerJson,
      tokenizerConfig: { eos_token: { __type: "AddedToken", content: "<eos>" }, pad_token: null },
      chatTemplate: "T",
    });
    expect(tokenizer.eosToken).toBe("<eos>");
    expect(tokenizer.padToken).toBeUndefined();
    expect(tokenizer.chatTemplate).toBe("T");
    expect(tokenizer.stopTokenIds).toEqual([3]);
    expect(tokenizer.templateSpecialTokens).toEqual({ eos_token: "<eos>" });
    expect(() => createTokenizer({ tokenizerJson: [], tokenizerConfig: {} })).toThrow(
      expect.objectContaining({ file: "tokenizer.json", reason: "invalid" }),
    );
  });
});
