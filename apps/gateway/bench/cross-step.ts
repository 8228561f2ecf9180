// Cross-step bench (`pnpm bench`, after the serve bench): 4 steps × 8 Groups × 4 samples of the
// long-tail agent (lognormal turns and tool latencies, seeded; run in process by the fake launcher, with a
// start-up delay standing for sandbox and tool set-up) against the SGLang stand-in engine (a scripted
// stand-in, not a model) with a latency per token. For synchronous, --partial-rollout and --fully-async,
// each without and with --agentic-prelaunch, measured side by side in this one run: wall time and engine
// idle fraction (time with no request running on the engine). Between steps a stand-in "trainer" holds
// the run for BENCH_TRAIN_MS (partial rollout keeps the gate paused then; fully async keeps generating).
// Latencies are scaled down so the whole bench stays short; the figures are ratios, not absolute speeds.
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
}

async function measure(name: string, crossStep: CrossStepOptions): Promise<Measured> {
  let controller: RolloutController | undefined;
  const gateway = await createTestGateway({
    export: { nSamplesPerPrompt: SAMPLES },
    tokenLatencyMs: TOKEN_LATENCY_MS,
    gate: true,
    maxResponseLen: 128,
    policyFor: () => longTailPolicy as never,
    turns: { currentStep: () => controller?.currentStep },
  });
  const launcher = createFakeLauncher({
    fetch: gateway.fetch,
    agent: async (context) => {
      await sleep(START_MS);
      const slot = context.sessionLabel.split(".s")[1]!;
      const result = await runLongTailSession({
        messages: context.input.messages as ChatMessage[],
        key: `${(context.input.metadata as { id: string }).id}|${slot}`,
        params: { toolMedianMs: TOOL_MEDIAN_MS, maxTurns: MAX_TURNS },
        complete: async (messages) => {
          const response = await context.chat({ model: "m", messages });
          if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
          return ((await response.json()) as { choices: Array<{ message: ChatMessage }> }).choices[0]!
            .message;
        },
      });
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
  for (let step = 0; step < STEPS; step++) {
    const result = await controller.runStep({
      rolloutId: step,
      prompts,
      groupsPerStep: GROUPS,
      groupSize: SAMPLES,
      concurrency: OVER_SAMPLING,
      overSampling: OVER_SAMPLING,
      mode: "train",
      nextStepFollows: step + 1 < STEPS,
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
  return { name, wallS: wallMs / 1000, idleFraction: idleMs / wallMs, rows, aborts };
}

const configs: Array<[string, CrossStepOptions]> = [
  ["synchronous", {}],
  ["synchronous + prelaunch", { prelaunch: true }],
  ["partial rollout", { partialRollout: true }],
  ["partial rollout + prelaunch", { partialRollout: true, prelaunch: true }],
  ["fully async", { fullyAsync: true }],
  ["fully async + prelaunch", { fullyAsync: true, prelaunch: true }],
];
const results: Measured[] = [];
for (const [name, crossStep] of configs) results.push(await measure(name, crossStep));

const sync = results[0]!;
console.log(
  `\ncross-step bench: ${STEPS} steps × ${GROUPS} Groups × ${SAMPLES} samples (over-sampling ${OVER_SAMPLING}), long-tail agent (start-up ${START_MS} ms, tool median ${TOOL_MEDIAN_MS} ms), stand-in engine (not a model) at ${TOKEN_LATENCY_MS} ms/token, trainer step ${TRAIN_MS} ms`,
);
console.log("config                          wall s   engine idle   rows  aborts  speed-up vs sync");
for (const result of results) {
  console.log(
    `${result.name.padEnd(30)} ${result.wallS.toFixed(2).padStart(6)}   ${(result.idleFraction * 100).toFixed(1).padStart(9)} %  ${String(result.rows).padStart(5)}  ${String(result.aborts).padStart(6)}  ${(sync.wallS / result.wallS).toFixed(2).padStart(8)}×`,
  );
}
const best = results.at(-1)!;
console.log(
  `fully async + prelaunch vs synchronous: ${(sync.wallS / best.wallS).toFixed(2)}× wall time (target ≥ 1.5×), engine idle ${(sync.idleFraction * 100).toFixed(1)} % → ${(best.idleFraction * 100).toFixed(1)} %; bench took ${((performance.now() - benchStarted) / 1000).toFixed(1)} s`,
);
