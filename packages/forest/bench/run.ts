/**
 * SessionForest bench (`pnpm bench`, run with `node --expose-gc --import tsx`).
 *
 * What it measures:
 * 1. Memory per stored token of a 100-turn, 64k-token session (half the tokens generated), with float32
 *    logprobs (as SGLang computes them: stored in 4 bytes) and with logprobs that are not float32 values
 *    (8 bytes): the token / logprob typed arrays (exact, from `stats().tokenBytes`), and the forest's
 *    whole footprint after `global.gc()`: `process.memoryUsage()` heapUsed (JS heap: nodes, message text)
 *    plus external, which holds the typed arrays' backing stores (`arrayBuffers`, printed on its own);
 *    heapUsed alone would leave the token storage out. Each shape is built and measured 3 times
 *    (median, min–max).
 * 2. Match + commit cost per turn with 10, 100 and 1,000 messages of history: the request is hashed
 *    (linear in its size), matched, its new tool result committed as an observation and a response
 *    committed. JSON parsing of the request body and materialising `inputIds` are timed separately.
 * 3. A request that matches nothing (a reset): the chained walk against re-hashing every prefix.
 *
 * What it cannot measure: a real tokenizer (the synthetic renderer makes 4 characters a token), the
 * gateway's per-session state besides the forest (bench/sessions.ts in apps/gateway measures whole
 * sessions), or timings free of a shared machine's neighbours (it reports p10s, not medians).
 */
import { createHash } from "node:crypto";
import type { AssistantMessage, ChatMessage, ConversationState } from "@relax/chat";
import { stableStringify } from "@relax/chat/internal";
import { SessionForest } from "../src/index";
import { hashConversationState } from "../src/state/state-hash";
import { createSyntheticRenderer } from "./synthetic-renderer";

const renderer = createSyntheticRenderer();
const gc = (globalThis as { gc?: () => void }).gc;

function filler(n: number, seed: number): string {
  const words = ["alpha", "beta", "gamma", "delta", "file.ts", "line", "42", "error:", "const", "return"];
  let out = "";
  for (let i = 0; out.length < n; i++) out += `${words[(seed + i * 7) % words.length]} `;
  return out.slice(0, n);
}

function assistantTurn(i: number, chars: number): AssistantMessage {
  return {
    role: "assistant",
    content: filler(chars / 2, i),
    reasoning_content: filler(chars / 4, i + 1),
    tool_calls: [
      {
        id: `call_${i}`,
        type: "function",
        function: { name: "run", arguments: JSON.stringify({ cmd: filler(chars / 4, i + 2) }) },
      },
    ],
  };
}

function toolResult(i: number, chars: number): ChatMessage {
  return { role: "tool", content: filler(chars, i + 3), tool_call_id: `call_${i}` };
}

/** Commits a linear session whose history has `messages` messages; returns the forest and the history. */
function linearSession(messages: number, chars: number): { forest: SessionForest; history: ChatMessage[] } {
  const forest = new SessionForest({ sessionId: "bench", renderer });
  const history: ChatMessage[] = [
    { role: "system", content: filler(chars, 0) },
    { role: "user", content: filler(chars, 1) },
  ];
  let turn = 0;
  for (;;) {
    const plan = forest.beginTurn(state(history));
    const message = assistantTurn(turn, chars);
    commit(forest, plan, message);
    history.push(message);
    if (history.length >= messages) break;
    history.push(toolResult(turn, chars));
    turn++;
  }
  return { forest, history };
}

const state = (messages: ChatMessage[]): ConversationState => ({
  messages,
  tools: [],
  chatTemplateKwargs: {},
});

/** Logprobs of the memory session: float32 values (SGLang's) or doubles that are not. */
let float32Logprobs = false;

function commit(
  forest: SessionForest,
  plan: ReturnType<SessionForest["beginTurn"]>,
  message: AssistantMessage,
) {
  const outputIds = renderer.responseIds(message);
  const logprob = (i: number) => -0.01 * (i % 100) - 1e-9;
  return forest.commitResponse(plan, {
    outputIds,
    logprobs: outputIds.map((_, i) => (float32Logprobs ? Math.fround(logprob(i)) : logprob(i))),
    finishReason: "stop",
    message,
    weightVersion: "1",
  });
}

/**
 * The 10th-percentile of `runs` timings of `fn`, in microseconds: on a shared machine the low percentiles
 * are what the code costs, the median also measures the neighbours.
 */
function fast(runs: number, fn: (i: number) => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    fn(i);
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 10)]!;
}

function turnCost(historyMessages: number): Record<string, string | number> {
  const chars = 400;
  const { forest, history } = linearSession(historyMessages, chars);
  const runs = historyMessages >= 1000 ? 100 : 300;
  const request = (i: number) => [...history, toolResult(10_000 + i, chars)];
  const body = JSON.stringify({ model: "m", messages: request(0) });
  const reply = assistantTurn(99_999, chars);
  for (let i = 0; i < 20; i++) {
    hashConversationState(state(request(i)));
    JSON.parse(body);
  }
  // Each phase times `runs` calls on prepared inputs, after a full GC.
  const timed = (fn: (i: number) => unknown) => {
    gc?.();
    return fast(runs, fn);
  };
  const requests = Array.from({ length: runs }, (_, i) => request(i));
  const parse = timed(() => JSON.parse(body));
  const hash = timed((i) => hashConversationState(state(requests[i]!)));
  const plans: ReturnType<SessionForest["beginTurn"]>[] = [];
  const begin = timed((i) => plans.push(forest.beginTurn(state(requests[i]!))));
  const commitTime = timed((i) => commit(forest, plans[i]!, { ...reply, content: `r${i}` }));
  const promptTokens = plans[0]!.promptTokens;
  // Paired: hash then beginTurn on the same fresh request, per iteration; the median of the differences
  // is beginTurn's own work besides hashing, with slow drifts of a shared machine cancelled out.
  const extra: number[] = [];
  gc?.();
  for (let i = 0; i < runs; i++) {
    const messages = request(50_000 + i);
    let start = process.hrtime.bigint();
    hashConversationState(state(messages));
    const hashed = Number(process.hrtime.bigint() - start) / 1000;
    start = process.hrtime.bigint();
    forest.beginTurn(state(messages));
    extra.push(Number(process.hrtime.bigint() - start) / 1000 - hashed);
  }
  extra.sort((a, b) => a - b);
  const beginOwn = extra[Math.floor(extra.length / 2)]!;
  // Last, as each materialised prefix stays cached on its plan (a large live heap slows every GC).
  const materialise = timed((i) => plans[i]!.inputIds);
  const bytes = body.length;
  return {
    "history msgs": historyMessages,
    "request KiB": Math.round(bytes / 1024),
    "prompt tokens": promptTokens,
    "JSON.parse µs": round(parse),
    "hash µs": round(hash),
    "beginTurn µs": round(begin),
    "commit µs": round(commitTime),
    "beginTurn − hash µs": round(beginOwn),
    "hash µs/msg": round(hash / (historyMessages + 1), 2),
    "inputIds µs": round(materialise),
  };
}

/**
 * A request that matches nothing (a reset) at `n` messages: the chained walk hashes each message once;
 * re-hashing every prefix from the full length down (the Python Relax's scan, one sha256 over the whole
 * prefix JSON per length) costs O(n²) (see docs/contract.md#deviations).
 */
function resetScan(n: number): Record<string, string | number> {
  const chars = 400;
  const { forest } = linearSession(8, chars);
  const messages = Array.from({ length: n }, (_, i) =>
    i % 2 ? toolResult(i, chars) : { role: "user" as const, content: filler(chars, i + 1) },
  );
  const chained = fast(n >= 1000 ? 20 : 100, () => forest.beginTurn(state(messages)));
  const naiveRuns = n >= 1000 ? 1 : 10;
  const naive = fast(naiveRuns, () => {
    for (let k = messages.length; k > 0; k--) {
      createHash("sha256")
        .update(stableStringify({ messages: messages.slice(0, k), template_kwargs: {}, tools: [] }))
        .digest("hex");
    }
  });
  return {
    messages: n,
    "chained beginTurn µs": round(chained),
    "per-prefix re-hash µs": round(naive),
    ratio: round(naive / chained, 1),
  };
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** Memory session shape: 100 turns × (320 observation + 320 generated tokens) ≈ 64k tokens. */
const MEMORY_TURNS = 100;
const MEMORY_CHARS = 320 * 4;

/** Builds the memory session; everything but the forest is garbage when it returns. */
function buildMemorySession(): SessionForest {
  const forest = new SessionForest({ sessionId: "mem", renderer });
  let history: ChatMessage[] = [
    { role: "system", content: filler(64, 0) },
    { role: "user", content: filler(MEMORY_CHARS - 64 - 20, 1) },
  ];
  for (let turn = 0; turn < MEMORY_TURNS; turn++) {
    const plan = forest.beginTurn(state(history));
    const message: AssistantMessage = { role: "assistant", content: filler(MEMORY_CHARS - 40, turn) };
    commit(forest, plan, message);
    history = [...history, message, { role: "user", content: filler(MEMORY_CHARS - 40, turn + 5) }];
  }
  return forest;
}

const retained: SessionForest[] = [];

/** `process.memoryUsage()` after full collections. */
function used(): NodeJS.MemoryUsage {
  for (let i = 0; i < 3; i++) gc?.();
  return process.memoryUsage();
}

function memory(float32: boolean): Record<string, string | number> {
  float32Logprobs = float32;
  buildMemorySession(); // warm-up: compiled code and caches are not the forest's
  const samples: Array<{ heap: number; external: number; arrayBuffers: number }> = [];
  let forest: SessionForest | undefined;
  for (let run = 0; run < 3; run++) {
    forest = undefined;
    const before = used();
    retained.push(buildMemorySession());
    const after = used();
    forest = retained.pop()!;
    samples.push({
      heap: after.heapUsed - before.heapUsed,
      external: after.external - before.external,
      arrayBuffers: after.arrayBuffers - before.arrayBuffers,
    });
  }
  const stats = forest!.stats();
  const tokens = stats.observationTokens + stats.responseTokens;
  const per = (pick: (s: (typeof samples)[number]) => number) => {
    const values = samples.map((s) => pick(s) / tokens).sort((a, b) => a - b);
    return `${round(values[1]!, 2)} (${round(values[0]!, 2)}–${round(values[2]!, 2)})`;
  };
  const result: Record<string, string | number> = {
    logprobs: float32 ? "float32 (SGLang)" : "float64",
    "stored tokens": tokens,
    "generated tokens": stats.responseTokens,
    "typed arrays B/token": round(stats.tokenBytes / tokens, 2),
    "all B/token": gc ? per((s) => s.heap + s.external) : "run with --expose-gc",
    "heap B/token": gc ? per((s) => s.heap) : "-",
    "arrayBuffers B/token": gc ? per((s) => s.arrayBuffers) : "-",
    "message text B/token": round(
      forest!
        .conversationState(forest!.implicitExportLeaf().stateHash)
        .messages.reduce((n, m) => n + (m.content as string).length, 0) / tokens,
      2,
    ),
  };
  const snapshotBytes = JSON.stringify(forest!.toSnapshot()).length;
  const start = process.hrtime.bigint();
  forest!.buildSample(forest!.implicitExportLeaf().stateHash);
  result["buildSample ms"] = round(Number(process.hrtime.bigint() - start) / 1e6, 2);
  result["snapshot JSON B/token"] = round(snapshotBytes / tokens, 1);
  float32Logprobs = false;
  return result;
}

console.log(`SessionForest bench — node ${process.version}, ${process.arch}${gc ? "" : " (no --expose-gc)"}`);
console.log("\n1. Memory of a 100-turn, 64k-token session (synthetic renderer, 4 chars/token)");
console.table([memory(true), memory(false)]);
console.log("   goal: ≤ 12 B/token, typed arrays counted (all = heap + external)");
console.log(
  "\n2. Per-turn cost (p10 of the runs, µs), linear session, 400-char messages; request = history + one tool result",
);
console.table([10, 100, 1000].map(turnCost));
console.log("\n3. A request that matches nothing (reset): chained walk vs re-hashing every prefix");
console.table([10, 100, 1000].map(resetScan));
