// Cross-step bench (`pnpm bench`, after the serve bench): STEPS steps × 8 Groups × 4 samples of the
// long-tail agent (lognormal turns and tool latencies, seeded; run in process by the fake launcher, with a
// start-up delay standing for sandbox and tool set-up) against the SGLang stand-in engine (a scripted
// stand-in, not a model: unlimited concurrency, a fixed latency per token) for synchronous,
// --partial-rollout and --fully-async, each without and with --agentic-prelaunch. Between steps a stand-in
// "trainer" holds the run for BENCH_TRAIN_MS (partial rollout keeps the gate paused then; fully async keeps
// generating; with fully async, prelaunched Groups are not held but run at once, docs/contract.md).
//
// What it measures: wall time and engine idle fraction (time with no request running on the engine) of
// each configuration; every configuration is first run once and discarded (warm-up: JIT, module caches),
// then BENCH_XS_ROUNDS rounds (≥ 3) each run every configuration once, in an order rotated per round, so
// a slow spell of the shared machine hits all configurations alike. Per configuration it prints the median
// and the spread (min–max) of the rounds, and per round the ratio synchronous ÷ fully async + prelaunch.
// It also prints the bound the workload itself puts on that ratio: a Group's work is its longest sample's
// time from its first reply to its end (later turns and tool calls, timed in this run; the first request
// is left out as it may wait at a barrier or a closed gate), at most BENCH_XS_OVER_SAMPLING Groups are
// resident at once, so no schedule of the exported Groups' work finishes before Σ work ÷ that many (and
// never before the longest Group) plus the last trainer hold; the synchronous wall of the same round
// divided by that lower bound is the best speed-up fully async + prelaunch could have had.
//
// What it cannot measure: real engines (a batch's per-token latency grows with its size here it does
// not, so overlapping Groups is free), real sandboxes (start-up is a sleep), or absolute speeds: the
// latencies are scaled down so the bench stays short, and on a loaded machine timers stretch every
// configuration; read the ratios of the same round, not the seconds.
import { Writable } from "node:stream";
import type { PromptItem } from "@relax/runtime";
import { type CrossStepOptions, createLogger, RolloutController, RunReporter } from "@relax/runtime";
import { createFakeLauncher, createTestGateway } from "@relax/runtime/testing";
import { type ChatMessage, longTailPolicy, runLongTailSession } from "@relax-examples/long-tail-agent";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const STEPS = env("BENCH_XS_STEPS", 4);
const GROUPS = env("BENCH_XS_GROUPS", 8);
const SAMPLES = env("BENCH_XS_SAMPLES", 4);
const TOKEN_LATENCY_MS = env("BENCH_XS_TOKEN_LATENCY_MS", 1);
const START_MS = env("BENCH_XS_START_MS", 60);
const TRAIN_MS = env("BENCH_TRAIN_MS", 60);
const TOOL_MEDIAN_MS = env("BENCH_XS_TOOL_MEDIAN_MS", 5);
const MAX_TURNS = env("BENCH_XS_MAX_TURNS", 8);
/** `--over-sampling-batch-size` (and `--agentic-concurrency`, its default) of every configuration. */
const OVER_SAMPLING = env("BENCH_XS_OVER_SAMPLING", 10);
/** Measured rounds (each runs every configuration once, after one discarded warm-up run of each). */
const ROUNDS = Math.max(3, env("BENCH_XS_ROUNDS", 3));
/** Steps of the discarded warm-up run of each configuration. */
const WARMUP_STEPS = env("BENCH_XS_WARMUP_STEPS", 1);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const benchStarted = performance.now();

const prompts: PromptItem[] = Array.from({ length: 64 }, (_, index) => ({
  index,
  messages: [{ role: "user", content: `Long-tail task ${index}` }],
  metadata: { id: `p${index}` },
}));

interface Measured {
  name: string;
  wallS: number;
  idleFraction: number;
  rows: number;
  aborts: number;
  /** Lower bound of the wall time of any schedule doing this run's work, in seconds (see the header). */
  boundS: number;
}

/**
 * The work of one Group: per sample, from its first reply to its end (its later turns and tool calls; the
 * first request is left out, as it may wait at the Group's first-request barrier or a closed gate).
 * A Group's samples run side by side, so its work is the longest sample's.
 */
interface GroupWork {
  samples: number;
  ended: number;
  work: number;
}

/**
 * The lower bound of the header: the `needed` smallest completed Groups' work (the exported Groups did
 * at least that much), spread over `slots` resident Groups, never below the longest of them, plus the
 * trainer hold after the last step, which nothing overlaps. In seconds.
 */
function workBound(groups: Iterable<GroupWork>, needed: number, slots: number): number {
  const works = [...groups]
    .filter((group) => group.ended === group.samples)
    .map((group) => group.work)
    .sort((a, b) => a - b)
    .slice(0, needed);
  const total = works.reduce((sum, work) => sum + work, 0);
  return (Math.max(total / slots, works.at(-1) ?? 0) + TRAIN_MS) / 1000;
}

async function measure(name: string, crossStep: CrossStepOptions, steps = STEPS): Promise<Measured> {
  let controller: RolloutController | undefined;
  const gateway = await createTestGateway({
    export: { nSamplesPerPrompt: SAMPLES },
    tokenLatencyMs: TOKEN_LATENCY_MS,
    gate: true,
    maxResponseLen: 128,
    policyFor: () => longTailPolicy as never,
    turns: { currentStep: () => controller?.currentStep },
  });
  const groups = new Map<string, GroupWork>();
  const launcher = createFakeLauncher({
    fetch: gateway.fetch,
    agent: async (context) => {
      await sleep(START_MS);
      const [label, slot] = context.sessionLabel.split(".s") as [string, string];
      const group = groups.get(label) ?? { samples: 0, ended: 0, work: 0 };
      groups.set(label, group);
      group.samples++;
      let firstReply: number | undefined;
      const result = await runLongTailSession({
        messages: context.input.messages as ChatMessage[],
        key: `${(context.input.metadata as { id: string }).id}|${slot}`,
        params: { toolMedianMs: TOOL_MEDIAN_MS, maxTurns: MAX_TURNS },
        complete: async (messages) => {
          const response = await context.chat({ model: "m", messages });
          firstReply ??= performance.now();
          if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
          return ((await response.json()) as { choices: Array<{ message: ChatMessage }> }).choices[0]!
            .message;
        },
      });
      group.ended++;
      group.work = Math.max(group.work, performance.now() - (firstReply ?? performance.now()));
      return { status: "succeeded", output: { kind: "implicit", reward: result.reward } };
    },
  });
  controller = new RolloutController({
    group: gateway.groupContext({ launchAgent: launcher.launch, agentTimeoutMs: 600_000 }),
    logger: createLogger({ level: "silent", destination: new Writable({ write: (_c, _e, cb) => cb() }) }),
    reporter: new RunReporter({ progress: false }),
    decode: (ids) => gateway.tokenizer.decode(ids),
    logPassrate: false,
    crossStep,
  });

  // Engine idle time: re-checked by the stand-in on every state change and token.
  let tracking = true;
  let busy = false;
  let idleMs = 0;
  let idleSince = performance.now();
  const started = performance.now();
  const tracker = (async () => {
    while (tracking) {
      await gateway.standin.until(
        (requests) => !tracking || requests.some((request) => request.state === "running") !== busy,
      );
      const now = performance.now();
      if (!busy) idleMs += now - idleSince;
      busy = !busy;
      if (!busy) idleSince = now;
    }
  })();
  let rows = 0;
  let aborts = 0;
  for (let step = 0; step < steps; step++) {
    const result = await controller.runStep({
      rolloutId: step,
      prompts,
      groupsPerStep: GROUPS,
      groupSize: SAMPLES,
      concurrency: OVER_SAMPLING,
      overSampling: OVER_SAMPLING,
      mode: "train",
      nextStepFollows: step + 1 < steps,
    });
    rows += result.rows.length;
    aborts += result.rows.reduce((sum, row) => sum + row.abort_count, 0);
    await sleep(TRAIN_MS);
  }
  const ended = performance.now();
  if (!busy) idleMs += ended - idleSince;
  tracking = false;
  await controller.interruptAll();
  await gateway.close();
  // The tracker's last `until` is left pending (the engine is closed); it holds nothing open.
  void tracker.catch(() => undefined);
  const wallMs = ended - started;
  const boundS = workBound(groups.values(), steps * GROUPS, OVER_SAMPLING);
  return { name, wallS: wallMs / 1000, idleFraction: idleMs / wallMs, rows, aborts, boundS };
}

const allConfigs: Array<[string, CrossStepOptions]> = [
  ["synchronous", {}],
  ["synchronous + prelaunch", { prelaunch: true }],
  ["partial rollout", { partialRollout: true }],
  ["partial rollout + prelaunch", { partialRollout: true, prelaunch: true }],
  ["fully async", { fullyAsync: true }],
  ["fully async + prelaunch", { fullyAsync: true, prelaunch: true }],
];
// BENCH_XS_CONFIGS: comma-separated indexes into the list above (synchronous and fully async + prelaunch
// are always run: the target compares them).
const picked = new Set((process.env.BENCH_XS_CONFIGS ?? "0,1,2,3,4,5").split(",").map(Number));
const configs = allConfigs.filter((_, i) => i === 0 || i === 5 || picked.has(i));
const SYNC = "synchronous";
const BEST = "fully async + prelaunch";

for (const [name, crossStep] of configs) await measure(name, crossStep, WARMUP_STEPS);
const runs = new Map<string, Measured[]>(configs.map(([name]) => [name, []]));
const roundRatios: Array<{ ratio: number; ceiling: number }> = [];
for (let round = 0; round < ROUNDS; round++) {
  const order = configs.map((_, i) => configs[(i + round) % configs.length]!);
  const measured = new Map<string, Measured>();
  for (const [name, crossStep] of order) measured.set(name, await measure(name, crossStep));
  for (const [name, result] of measured) runs.get(name)!.push(result);
  const sync = measured.get(SYNC)!;
  const best = measured.get(BEST)!;
  roundRatios.push({ ratio: sync.wallS / best.wallS, ceiling: sync.wallS / best.boundS });
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const spread = (values: readonly number[], digits = 2) =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
const syncMedian = median(runs.get(SYNC)!.map((r) => r.wallS));
console.log(
  `\ncross-step bench: ${STEPS} steps × ${GROUPS} Groups × ${SAMPLES} samples (over-sampling ${OVER_SAMPLING}), long-tail agent (start-up ${START_MS} ms, tool median ${TOOL_MEDIAN_MS} ms), stand-in engine (not a model) at ${TOKEN_LATENCY_MS} ms/token, trainer step ${TRAIN_MS} ms; ${ROUNDS} interleaved rounds after one discarded ${WARMUP_STEPS}-step warm-up run of each configuration; medians (min–max)`,
);
console.log(
  "config                          wall s (spread)        engine idle %   rows  aborts  vs sync  bound s  walls per round",
);
for (const [name] of configs) {
  const list = runs.get(name)!;
  const walls = list.map((r) => r.wallS);
  const idle = list.map((r) => r.idleFraction * 100);
  console.log(
    `${name.padEnd(30)} ${median(walls).toFixed(2).padStart(6)} (${spread(walls)})  ${median(idle).toFixed(1).padStart(5)} (${spread(idle, 1)})  ${String(median(list.map((r) => r.rows))).padStart(5)}  ${String(median(list.map((r) => r.aborts))).padStart(6)}  ${(syncMedian / median(walls)).toFixed(2).padStart(6)}×  ${median(
      list.map((r) => r.boundS),
    )
      .toFixed(2)
      .padStart(7)}  ${walls.map((w) => w.toFixed(1)).join(" / ")}`,
  );
}
const ratios = roundRatios.map((r) => r.ratio);
const ceilings = roundRatios.map((r) => r.ceiling);
console.log(
  `fully async + prelaunch vs synchronous, per round (same round): ${ratios.map((r) => `${r.toFixed(2)}×`).join(", ")} (target ≥ 1.5× in each: ${ratios.every((r) => r >= 1.5) ? "met" : "not met"}); median ${median(ratios).toFixed(2)}×`,
);
console.log(
  `  bound from the work itself, per round: synchronous wall ÷ (Σ work of the ${STEPS * GROUPS} exported Groups ÷ ${OVER_SAMPLING} resident Groups, ≥ the longest, + last trainer hold) = ${ceilings.map((c) => `${c.toFixed(2)}×`).join(", ")} — no schedule of that work beats it; measured ÷ bound ${median(ratios.map((r, i) => r / ceilings[i]!)).toFixed(2)} (median)`,
);
console.log(`  bench took ${((performance.now() - benchStarted) / 1000).toFixed(1)} s`);
