/**
 * Projection cost of a 200-message body per protocol, against `JSON.parse` of the same body.
 * Run with `pnpm bench`. Figures depend on the machine and its load; compare ratios, not absolutes.
 * Cannot measure: HTTP framing or streaming (only the projection of a parsed body), or other body sizes.
 */
import { Bench } from "tinybench";
import {
  convertAnthropicMessagesRequest,
  convertChatCompletionsRequest,
  convertResponsesRequest,
} from "../src/index";

const ROUNDS = 66; // 1 system + 66 × (user, assistant, tool) + 1 user = 200 Chat messages

const parameters = {
  type: "object",
  properties: { path: { type: "string" }, start: { type: "integer" }, end: { type: "integer" } },
  required: ["path"],
};

function chatBody() {
  const messages: unknown[] = [{ role: "system", content: "You are a coding agent. ".repeat(40) }];
  for (let i = 0; i < ROUNDS; i++) {
    messages.push({ role: "user", content: `Step ${i}: read the next file and summarise it. `.repeat(4) });
    messages.push({
      role: "assistant",
      content: `I will read src/file_${i}.ts.`,
      reasoning_content: `The user wants step ${i}. Reading the file is the next action. `.repeat(6),
      tool_calls: [
        {
          id: `call_${i}`,
          type: "function",
          function: {
            name: "read_file",
            arguments: JSON.stringify({ path: `src/file_${i}.ts`, start: 1, end: 200 }),
          },
        },
      ],
    });
    messages.push({
      role: "tool",
      tool_call_id: `call_${i}`,
      content: `export const value${i} = ${i};\n`.repeat(30),
    });
  }
  messages.push({ role: "user", content: "Now write the summary." });
  return {
    model: "qwen3-8b",
    messages,
    tools: [{ type: "function", function: { name: "read_file", description: "Read a file", parameters } }],
    max_completion_tokens: 4096,
    temperature: 0.7,
  };
}

function responsesBody() {
  const input: unknown[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    input.push({
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: `Step ${i}: read the next file and summarise it. `.repeat(4) }],
    });
    input.push({
      type: "reasoning",
      summary: [],
      content: [
        {
          type: "reasoning_text",
          text: `The user wants step ${i}. Reading the file is the next action. `.repeat(6),
        },
      ],
    });
    input.push({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: `I will read src/file_${i}.ts.`, annotations: [] }],
    });
    input.push({
      type: "function_call",
      call_id: `call_${i}`,
      name: "read_file",
      arguments: JSON.stringify({ path: `src/file_${i}.ts`, start: 1, end: 200 }),
    });
    input.push({
      type: "function_call_output",
      call_id: `call_${i}`,
      output: `export const value${i} = ${i};\n`.repeat(30),
    });
  }
  input.push({
    type: "message",
    role: "user",
    content: [{ type: "input_text", text: "Now write the summary." }],
  });
  return {
    model: "qwen3-8b",
    instructions: "You are a coding agent. ".repeat(40),
    input,
    tools: [{ type: "function", name: "read_file", description: "Read a file", parameters, strict: false }],
    max_output_tokens: 4096,
    store: false,
  };
}

function anthropicBody() {
  const messages: unknown[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const user = { type: "text", text: `Step ${i}: read the next file and summarise it. `.repeat(4) };
    messages.push({
      role: "user",
      content:
        i === 0
          ? [user]
          : [
              {
                type: "tool_result",
                tool_use_id: `call_${i - 1}`,
                content: `export const value${i - 1} = ${i - 1};\n`.repeat(30),
              },
              user,
            ],
    });
    messages.push({
      role: "assistant",
      content: [
        {
          type: "thinking",
          thinking: `The user wants step ${i}. Reading the file is the next action. `.repeat(6),
          signature: `sig_${i}`,
        },
        { type: "text", text: `I will read src/file_${i}.ts.` },
        {
          type: "tool_use",
          id: `call_${i}`,
          name: "read_file",
          input: { path: `src/file_${i}.ts`, start: 1, end: 200 },
        },
      ],
    });
  }
  messages.push({
    role: "user",
    content: [
      {
        type: "tool_result",
        tool_use_id: `call_${ROUNDS - 1}`,
        content: `export const value${ROUNDS - 1} = ${ROUNDS - 1};\n`.repeat(30),
      },
      { type: "text", text: "Now write the summary." },
    ],
  });
  return {
    model: "qwen3-8b",
    max_tokens: 4096,
    system: [{ type: "text", text: "You are a coding agent. ".repeat(40) }],
    messages,
    tools: [{ name: "read_file", description: "Read a file", input_schema: parameters }],
  };
}

const protocols = [
  { name: "chat-completions", body: chatBody(), convert: convertChatCompletionsRequest },
  { name: "responses", body: responsesBody(), convert: convertResponsesRequest },
  { name: "anthropic-messages", body: anthropicBody(), convert: convertAnthropicMessagesRequest },
];

const rows: Record<string, unknown>[] = [];
for (const { name, body, convert } of protocols) {
  const text = JSON.stringify(body);
  const parsed = JSON.parse(text);
  const messages = convert(parsed).request.messages.length;
  // A long warm-up: zod and V8 need a few hundred calls to reach the steady state a gateway runs in.
  const bench = new Bench({ time: 2_000, warmupTime: 3_000, warmupIterations: 400 });
  bench.add("JSON.parse", () => {
    JSON.parse(text);
  });
  bench.add("convert", () => {
    convert(parsed);
  });
  await bench.run();
  const [parse, project] = bench.tasks.map((task) => {
    const result = task.result;
    if (result.state !== "completed") throw new Error(`${name} ${task.name}: ${result.state}`);
    return result.latency;
  });
  rows.push({
    protocol: name,
    "canonical messages": messages,
    "body KiB": (text.length / 1024).toFixed(1),
    "JSON.parse µs": (parse!.mean * 1000).toFixed(1),
    "projection µs": (project!.mean * 1000).toFixed(1),
    "projection / JSON.parse": (project!.mean / parse!.mean).toFixed(2),
    "projection rme %": project!.rme.toFixed(1),
  });
}
console.log(
  `Node ${process.version}; projection of a pre-parsed body (zod validation + canonicalisation), mean per call`,
);
console.table(rows);
