/**
 * @relax/launcher benchmarks (`pnpm bench`). Figures are printed, never asserted.
 *
 * 1. start-to-first-line latency: wall time from calling `launchAgentSession` until the agent's first
 *    output line is written (the agent prints bash's `$EPOCHREALTIME`, so no polling error), sequentially;
 * 2. sessions/second at concurrency 50: a pool of 50 in-flight sessions (`echo`), counting handles
 *    launched per second and sessions completed (process tree reaped, IO directory removed) per second;
 * 3. `parseSessionOutput` on a 3-record JSONL file (tinybench).
 *
 * HOME points at an empty directory so the host's ~/.profile (pyenv, nvm...) does not dominate `bash -l`.
 * Set BENCH_SESSIONS (default 500) and BENCH_LATENCY_RUNS (default 40) to scale.
 * Cannot measure: real sandboxes (bubblewrap start-up differs per host) or agents heavier than a shell.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Bench } from "tinybench";
import { LocalProcessBackend, launchAgentSession } from "../src/index";
import { parseSessionOutput } from "../src/internal/index";
import { resolveReaperBinary } from "../src/process/resolve-reaper-binary";

const sessions = Number(process.env.BENCH_SESSIONS ?? 500);
const latencyRuns = Number(process.env.BENCH_LATENCY_RUNS ?? 40);
const concurrency = 50;

const root = await mkdtemp(join(tmpdir(), "relax-launcher-bench-"));
const backend = new LocalProcessBackend({
  ioRoot: join(root, "io"),
  baseEnv: { ...process.env, HOME: root },
});
await resolveReaperBinary(); // build outside the measurement
const wallClockMs = () => performance.timeOrigin + performance.now();
const identity = (sessionId: string) => ({
  sessionId,
  groupId: "bench",
  rolloutMode: "train" as const,
  baseUrl: "http://127.0.0.1:9/v1",
});

function summary(samples: number[]): string {
  const sorted = [...samples].sort((left, right) => left - right);
  const at = (quantile: number) => sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))]!;
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return `p50 ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, mean ${mean.toFixed(1)} ms (n=${sorted.length})`;
}

// 1. start-to-first-line latency
const firstLine: number[] = [];
const launched: number[] = [];
const endToEnd: number[] = [];
for (let run = 0; run < latencyRuns; run++) {
  const logDir = join(root, "logs");
  const started = wallClockMs();
  const handle = await launchAgentSession({
    ...identity(`latency-${run}`),
    command: 'echo "first-line $EPOCHREALTIME"',
    backend,
    logDir,
    active: true,
  });
  launched.push(wallClockMs() - started);
  await handle.done;
  endToEnd.push(wallClockMs() - started);
  const { readFile } = await import("node:fs/promises");
  const line = (await readFile(handle.logPath, "utf8")).split("\n")[0]!;
  firstLine.push(Number(line.split(" ")[1]) * 1000 - started);
}
console.log("@relax/launcher bench");
console.log(`  start → first output line : ${summary(firstLine)}`);
console.log(`  start → handle resolved   : ${summary(launched)}`);
console.log(`  start → session done      : ${summary(endToEnd)}  (exit, reap, output parse, IO dir removed)`);

// 2. sessions/second at concurrency 50
let next = 0;
let launchedCount = 0;
const launchTimes: number[] = [];
const poolStart = performance.now();
const poolCpu = process.cpuUsage();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < sessions) {
      const index = next++;
      const handle = await launchAgentSession({
        ...identity(`pool-${index}`),
        command: "echo hi",
        backend,
        active: true,
      });
      launchedCount++;
      launchTimes.push(performance.now() - poolStart);
      const outcome = await handle.done;
      if (outcome.status !== "succeeded") throw new Error(`session ${index} ${outcome.status}`);
    }
  }),
);
const poolSeconds = (performance.now() - poolStart) / 1000;
const cpu = process.cpuUsage(poolCpu);
console.log(
  `  concurrency ${concurrency}, ${sessions} sessions: ${(launchedCount / ((launchTimes.at(-1) ?? 1) / 1000)).toFixed(1)} launched/s, ` +
    `${(sessions / poolSeconds).toFixed(1)} completed/s (${poolSeconds.toFixed(2)} s total)`,
);
console.log(
  `  launcher (Node) CPU per session: ${((cpu.user + cpu.system) / 1000 / sessions).toFixed(2)} ms ` +
    `(user ${(cpu.user / 1000 / sessions).toFixed(2)}, system ${(cpu.system / 1000 / sessions).toFixed(2)})`,
);

// 3. output parsing (pure)
const jsonl = ["main", "searcher_0", "searcher_1"]
  .map((name) =>
    JSON.stringify({
      name,
      messages: [
        { role: "user", content: "question ".repeat(50) },
        { role: "assistant", content: "answer ".repeat(100) },
      ],
      metadata: { role: name, outcome: 1 },
      reward: 1,
    }),
  )
  .join("\n");
const bench = new Bench({ time: 500 });
bench.add("parseSessionOutput (3-record JSONL, 3.6 kB)", () => {
  parseSessionOutput(jsonl);
});
await bench.run();
for (const task of bench.tasks) {
  const result = task.result as { latency?: { mean: number; p50?: number } } | undefined;
  const medianMs = result?.latency?.p50 ?? result?.latency?.mean ?? Number.NaN;
  console.log(
    `  ${task.name}: median ${(medianMs * 1000).toFixed(1)} µs (≈ ${Math.round(1000 / medianMs).toLocaleString("en-US")} ops/s)`,
  );
}
await rm(root, { recursive: true, force: true });
