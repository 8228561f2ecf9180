// Cross-step bench (`pnpm bench`, after the serve bench): STEPS steps × 8 Groups × 4 samples of the
// long-tail agent (lognormal turns and tool latencies, seeded; run in process by the fake launcher, with a
// start-up delay standing for sandbox and tool set-up) against the SGLang stand-in engine (a scripted
// stand-in, not a model: unlimited concurrency, a fixed latency per token) for synchronous,
// --partial-rollout and --fully-async, each without and with --agentic-prelaunch. Between steps a stand-in
// "trainer" holds the run for BENCH_TRAIN_MS (partial rollout keeps the gate paused then; fully async keeps
// generating; with fully async, prelaunched Groups are not held but run at once, and the slots Groups free
// during the hold are refilled with the next step's Groups, docs/contract.md).
//
// What it measures: wall time, engine idle fraction (time with no request running on the engine) and
// resident occupancy (mean resident Groups ÷ the resident capacity) of each configuration; every
// configuration is first run once and discarded (warm-up: JIT, module caches), then BENCH_XS_ROUNDS rounds
// (≥ 3) each run every configuration once, in an order rotated per round, so a slow spell of the shared
// machine hits all configurations alike. Per configuration it prints the median and the spread (min–max)
// of the rounds, and per round the ratio synchronous ÷ fully async + prelaunch. Engine state and resident
// Groups are sampled every SAMPLE_MS (time-weighted), not re-checked on every token: a per-token check
// costs O(requests) per token, which slowed the configurations with more requests in flight most.
//
// It also prints the bound the workload itself puts on that ratio. A Group holds one of the
// BENCH_XS_OVER_SAMPLING resident slots (`--agentic-concurrency`: Prepare and Runtime share it) from its
// launch to its last agent's exit: its slot time is the agent start-up, its first request (the Group's
// first-request barrier and first reply) and its work (later turns and tool calls), all timed in this
// run. No schedule that exports 32 Groups with that many resident finishes before Σ slot time of the 32
// shortest completed Groups ÷ the resident slots (never before the longest of them), plus the last
// trainer hold, which nothing overlaps; the synchronous wall of the same round divided by that lower
// bound is the best speed-up fully async + prelaunch could have had. The bench also prints the same with
// the work alone (start-up and first request left out, as an earlier version did: too loose, a slot is
// held through both) and how much of its resident capacity fully async + prelaunch kept busy. The bound
// knows every Group's slot time in advance; fully async cannot (it starts Groups in prompt order and runs
// each to its end), so it also loses the last step's tail (slots left empty: no further Group is needed)
// and the slot time of over-sampled Groups still in flight, or finished beyond the batch, at the end: the
// bench prints both, and measured ≈ bound × occupied × (1 − beyond).
//
// What it cannot measure: real engines (a batch's per-token latency grows with its size; here each request
// sleeps its own per-token latency, so overlapping Groups is free for the engine, only the one JavaScript
// thread running agents, gateway and engine together slows with the requests in flight), real sandboxes (start-up is a sleep), or absolute speeds: the
// latencies are scaled down so the bench stays short, and on a loaded machine timers stretch every
// configuration; read the ratios of the same round, not the seconds.
import { performance as nodePerformance } from "node:perf_hooks";
import { Writable } from "node:stream";
import type { CrossStepOptions, PromptItem } from "@relax/rollout";
import { createLogger, RolloutController, RunReporter } from "@relax/rollout";
import { createFakeLauncher, createTestGroupGateway } from "@relax/rollout/testing";
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
/** Sampling period of engine state and resident Groups, in ms. */
const SAMPLE_MS = 2;
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
  /** Lower bound of the wall time of any schedule doing this run's Groups, from their slot time, in s. */
  boundS: number;
  /** The same from their work alone (start-up and first request left out), in seconds. */
  workBoundS: number;
  /** Mean resident train Groups ÷ resident capacity, over the wall. */
  occupancy: number;
  /**
   * Event-loop utilisation over the wall: the one JavaScript thread runs agents, gateway and stand-in
   * engine, so near 1 every timer (token latency included) fires late.
   */
  loopBusy: number;
  /** Mean slot time of the completed Groups, split: start-up, first request, the rest; in ms. */
  slotMs: { startUp: number; firstRequest: number; rest: number };
  /**
   * Share of the slot time of every Group started (unfinished ones up to the end) beyond the bound's
   * Groups: Groups in flight at the end or finished after the last batch, and longer Groups run in place
   * of shorter ones.
   */
  beyondBound: number;
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
  /** `performance.now()` when its first agent started (its slot is taken just before). */
  launched: number;
  /** Longest sample's first request: from its agent's start-up end to its first reply, in ms. */
  firstRequest: number;
  /** From launch to its last agent's exit, in ms. */
  slot: number;
}

/**
 * The lower bound of the header: the `needed` smallest completed Groups' slot time (or work), spread
 * over `slots` resident Groups, never below the longest of them, plus the trainer hold after the last
 * step, which nothing overlaps. In seconds.
 */
function slotBound(
  groups: readonly GroupWork[],
  needed: number,
  slots: number,
  of: (group: GroupWork) => number,
): number {
  const works = groups
    .filter((group) => group.ended === group.samples)
    .map(of)
    .sort((a, b) => a - b)
    .slice(0, needed);
  const total = works.reduce((sum, work) => sum + work, 0);
  return (Math.max(total / slots, works.at(-1) ?? 0) + TRAIN_MS) / 1000;
}

async function measure(name: string, crossStep: CrossStepOptions, steps = STEPS): Promise<Measured> {
  let controller: RolloutController | undefined;
  const gateway = await createTestGroupGateway({
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
      const agentStarted = performance.now();
      await sleep(START_MS);
      const [label, slot] = context.sessionLabel.split(".s") as [string, string];
      const group = groups.get(label) ?? {
        samples: 0,
        ended: 0,
        work: 0,
        launched: agentStarted,
        firstRequest: 0,
        slot: 0,
      };
      group.launched = Math.min(group.launched, agentStarted);
      groups.set(label, group);
      group.samples++;
      let firstReply: number | undefined;
      const result = await runLongTailSession({
        messages: context.input.messages as ChatMessage[],
        key: `${(context.input.metadata as { id: string }).id}|${slot}`,
        params: { toolMedianMs: TOOL_MEDIAN_MS, maxTurns: MAX_TURNS },
        complete: async (messages) => {
          const response = await context.chat({ model: "m", messages });
          if (firstReply === undefined) {
            firstReply = performance.now();
            group.firstRequest = Math.max(group.firstRequest, firstReply - agentStarted - START_MS);
          }
          if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
          return ((await response.json()) as { choices: Array<{ message: ChatMessage }> }).choices[0]!
            .message;
        },
      });
      group.ended++;
      const exited = performance.now();
      group.work = Math.max(group.work, exited - (firstReply ?? exited));
      group.slot = Math.max(group.slot, exited - group.launched);
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

  // Engine idle time and resident Groups: sampled every SAMPLE_MS, each sample weighted by the time
  // since the previous one.
  let idleMs = 0;
  let residentMs = 0;
  const loopBefore = nodePerformance.eventLoopUtilization();
  const started = performance.now();
  let sampledAt = started;
  const sample = () => {
    const now = performance.now();
    const busy = gateway.standin.requests().some((request) => request.state === "running");
    if (!busy) idleMs += now - sampledAt;
    residentMs += (controller?.residentGroups ?? 0) * (now - sampledAt);
    sampledAt = now;
  };
  const sampler = setInterval(sample, SAMPLE_MS);
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
  sample();
  clearInterval(sampler);
  const ended = performance.now();
  const loopBusy = nodePerformance.eventLoopUtilization(loopBefore).utilization;
  await controller.interruptAll();
  await gateway.close();
  const wallMs = ended - started;
  return {
    name,
    wallS: wallMs / 1000,
    idleFraction: idleMs / wallMs,
    rows,
    aborts,
    ...groupFigures([...groups.values()], steps * GROUPS, ended),
    occupancy: residentMs / wallMs / OVER_SAMPLING,
    loopBusy,
  };
}

/** The bounds and the mean slot split of a run's Groups (see {@link Measured}). */
function groupFigures(
  groups: readonly GroupWork[],
  needed: number,
  ended: number,
): Pick<Measured, "boundS" | "workBoundS" | "slotMs" | "beyondBound"> {
  const done = groups.filter((group) => group.ended === group.samples);
  const mean = (of: (group: GroupWork) => number) =>
    done.reduce((sum, group) => sum + of(group), 0) / Math.max(1, done.length);
  const firstRequest = mean((group) => group.firstRequest);
  const spentMs = groups.reduce(
    (sum, group) => sum + (group.ended === group.samples ? group.slot : ended - group.launched),
    0,
  );
  const boundS = slotBound(groups, needed, OVER_SAMPLING, (group) => group.slot);
  const boundSlotMs = (boundS * 1000 - TRAIN_MS) * OVER_SAMPLING;
  return {
    boundS,
    beyondBound: Math.max(0, 1 - boundSlotMs / spentMs),
    workBoundS: slotBound(groups, needed, OVER_SAMPLING, (group) => group.work),
    slotMs: { startUp: START_MS, firstRequest, rest: mean((group) => group.slot) - START_MS - firstRequest },
  };
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
const roundRatios: Array<{ ratio: number; ceiling: number; workCeiling: number }> = [];
for (let round = 0; round < ROUNDS; round++) {
  const order = configs.map((_, i) => configs[(i + round) % configs.length]!);
  const measured = new Map<string, Measured>();
  for (const [name, crossStep] of order) measured.set(name, await measure(name, crossStep));
  for (const [name, result] of measured) runs.get(name)!.push(result);
  const sync = measured.get(SYNC)!;
  const best = measured.get(BEST)!;
  roundRatios.push({
    ratio: sync.wallS / best.wallS,
    ceiling: sync.wallS / best.boundS,
    workCeiling: sync.wallS / best.workBoundS,
  });
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
  "config                          wall s (spread)        engine idle %   occupied %  loop busy %  rows  aborts  vs sync  bound s  walls per round",
);
for (const [name] of configs) {
  const list = runs.get(name)!;
  const walls = list.map((r) => r.wallS);
  const idle = list.map((r) => r.idleFraction * 100);
  const occupied = median(list.map((r) => r.occupancy * 100));
  const loop = median(list.map((r) => r.loopBusy * 100));
  console.log(
    `${name.padEnd(30)} ${median(walls).toFixed(2).padStart(6)} (${spread(walls)})  ${median(idle).toFixed(1).padStart(5)} (${spread(idle, 1)})  ${occupied.toFixed(1).padStart(10)}  ${loop.toFixed(1).padStart(11)}  ${String(median(list.map((r) => r.rows))).padStart(5)}  ${String(median(list.map((r) => r.aborts))).padStart(6)}  ${(syncMedian / median(walls)).toFixed(2).padStart(6)}×  ${median(
      list.map((r) => r.boundS),
    )
      .toFixed(2)
      .padStart(7)}  ${walls.map((w) => w.toFixed(1)).join(" / ")}`,
  );
}
const ratios = roundRatios.map((r) => r.ratio);
const ceilings = roundRatios.map((r) => r.ceiling);
const times = (values: readonly number[]) => values.map((value) => `${value.toFixed(2)}×`).join(", ");
const bestRuns = runs.get(BEST)!;
const slotMs = (of: (r: Measured) => number) => median(bestRuns.map(of)).toFixed(0);
console.log(
  `fully async + prelaunch vs synchronous, per round (same round): ${ratios.map((r) => `${r.toFixed(2)}×`).join(", ")} (target ≥ 1.5× in each: ${ratios.every((r) => r >= 1.5) ? "met" : "not met"}); median ${median(ratios).toFixed(2)}×`,
);
console.log(
  `  bound from the resident slots, per round: synchronous wall ÷ (Σ slot time of the ${STEPS * GROUPS} shortest completed Groups of fully async + prelaunch ÷ ${OVER_SAMPLING} resident slots, ≥ the longest, + last trainer hold) = ${times(ceilings)} — no schedule of those Groups with ${OVER_SAMPLING} resident beats it (${ceilings.every((c) => c >= 1.5) ? "1.5× within reach in each round" : `1.5× out of reach in ${ceilings.filter((c) => c < 1.5).length} of ${ceilings.length} rounds`}); measured ÷ bound ${median(ratios.map((r, i) => r / ceilings[i]!)).toFixed(2)} (median)`,
);
console.log(
  `  a Group's slot time (fully async + prelaunch, mean of completed Groups, median of rounds): ${slotMs((r) => r.slotMs.startUp + r.slotMs.firstRequest + r.slotMs.rest)} ms = agent start-up ${slotMs((r) => r.slotMs.startUp)} + first request ${slotMs((r) => r.slotMs.firstRequest)} (barrier and first reply) + later turns and tools ${slotMs((r) => r.slotMs.rest)}; the work alone (start-up and first request left out) would allow ${times(roundRatios.map((r) => r.workCeiling))}, but a Group holds its slot through both`,
);
console.log(
  `  fully async + prelaunch kept ${median(bestRuns.map((r) => r.occupancy * 100)).toFixed(1)} % of its ${OVER_SAMPLING} resident slots occupied (median; the rest: the last step's tail, when no further Group is needed, and slots freed between steps) and spent ${median(bestRuns.map((r) => r.beyondBound * 100)).toFixed(1)} % of that slot time beyond the bound's Groups (over-sampled Groups in flight at the end or finished after the last batch, longer Groups run in place of shorter ones): measured ≈ bound × occupied × (1 − beyond)`,
);
console.log(`  bench took ${((performance.now() - benchStarted) / 1000).toFixed(1)} s`);
