import { resolve } from "node:path";
import { type TrainingRow, writeTrainingRowsFile } from "@relax/export";
import type { Logger } from "pino";
import type { RolloutConfig } from "./config/rollout-config";
import type { StepResult } from "./controller/rollout-controller";
import type { LaunchAgent } from "./controller/run-group";
import { createLogger, formatAgenticEvent } from "./report/create-logger";
import { formatBanner, roundMetrics } from "./report/format-banner";
import { formatSummary, type RunSummary, summarizeRun } from "./report/format-summary";
import { createRolloutRuntime } from "./runtime/create-rollout-runtime";
import { hashRolloutConfig, openRunDir, writeRunState } from "./serve/run-dir";

export { BackendUnavailableError } from "./engine/backend-unavailable-error";

/** Where a run writes its human-facing output. */
export interface RunIo {
  /** Summary table and banner. @default process.stdout */
  stdout?: NodeJS.WritableStream;
  logger?: Logger;
  /** Aborting it interrupts the run: agents are terminated, servers closed, `RolloutInterruptedError` thrown. */
  signal?: AbortSignal;
  /** How agents start. @default one `launchAgentSession` process per session */
  launchAgent?: LaunchAgent;
}

/** What {@link runRollout} returns. */
export interface RolloutRun {
  summary: RunSummary;
  steps: StepResult[];
  evalSteps: StepResult[];
  rows: TrainingRow[];
  /** The rows file written (with `{rollout_id}` of the last step replaced). */
  output: string;
}

/**
 * Runs `relax rollout`: starts a {@link createRolloutRuntime | rollout runtime} (tokenizer, export
 * pipeline, datasets, SGLang or the stand-in engine, the gateway), runs `numRollout` train steps and then
 * one eval step over the eval dataset, writes training rows (JSONL) after each train step and prints a
 * summary. Everything it started is stopped before it returns or throws.
 *
 * With `runDir`, `<run-dir>/state.json` is written after each train step, and a run started on a
 * directory that has one continues at its rollout id and dataset cursor, running the steps up to
 * `numRollout` in all (none when they are done); a changed configuration is refused (ConfigError)
 * unless `runDirForce`.
 */
export async function runRollout(config: RolloutConfig, io: RunIo = {}): Promise<RolloutRun> {
  const stdout = io.stdout ?? process.stdout;
  const logger = io.logger ?? createLogger({ level: config.logLevel });
  const started = performance.now();
  const runDir = config.runDir !== undefined ? resolve(config.runDir) : undefined;
  const configHash = hashRolloutConfig(config);
  const saved =
    runDir !== undefined
      ? await openRunDir({ dir: runDir, configHash, force: config.runDirForce })
      : undefined;
  const runtime = await createRolloutRuntime(config, {
    logger,
    ...(io.signal !== undefined ? { signal: io.signal } : {}),
    ...(io.launchAgent !== undefined ? { launchAgent: io.launchAgent } : {}),
  });
  const { output } = runtime.components;
  const outputOf = (rolloutId: number) => output.replaceAll("{rollout_id}", String(rolloutId));
  const steps: StepResult[] = [];
  const evalSteps: StepResult[] = [];
  const firstRolloutId = saved?.next_rollout_id ?? 0;
  if (saved !== undefined) runtime.cursor = saved.dataset_cursor;
  try {
    stdout.write(formatBanner(runtime));
    if (saved !== undefined) {
      stdout.write(
        `  run dir   ${runDir}: continuing at rollout ${firstRolloutId}, prompt ${saved.dataset_cursor % runtime.prompts.length}\n`,
      );
    }
    for (let rolloutId = firstRolloutId; rolloutId < runtime.components.steps.numRollout; rolloutId++) {
      const step = await runtime.runStep({ rolloutId, mode: "train" });
      steps.push(step);
      await writeTrainingRowsFile({
        path: outputOf(rolloutId),
        rows: step.rows,
        append: !output.includes("{rollout_id}") && rolloutId > 0,
      });
      if (runDir !== undefined) {
        await writeRunState(runDir, {
          config_hash: configHash,
          next_rollout_id: rolloutId + 1,
          dataset_cursor: runtime.cursor,
          weight_version: saved?.weight_version ?? null,
          eval: saved?.eval ?? { last_rollout_id: null },
        });
      }
      logger.info(roundMetrics(step.metrics), formatAgenticEvent("metrics", { rollout: rolloutId }));
    }
    if (runtime.evalPrompts.length > 0) {
      const step = await runtime.runStep({ rolloutId: 0, mode: "eval" });
      evalSteps.push(step);
      logger.info(roundMetrics(step.metrics), formatAgenticEvent("eval_metrics", {}));
    }
  } finally {
    await runtime.close();
  }

  const rows = steps.flatMap((step) => step.rows);
  const summary = summarizeRun({
    rows,
    ...(evalSteps.length > 0 ? { evalRows: evalSteps.flatMap((step) => step.rows) } : {}),
    counters: runtime.reporter.counters,
    steps: steps.length,
    wallSeconds: (performance.now() - started) / 1000,
  });
  const lastRolloutId = firstRolloutId + steps.length - 1;
  const extra: Array<[string, string]> =
    steps.length > 0
      ? [["rows written to", outputOf(lastRolloutId)]]
      : [["rows written to", `nothing: ${runDir} already holds ${firstRolloutId} step(s)`]];
  if (runtime.backend.kind === "standin")
    extra.push(["backend", "stand-in engine (scripted policy, not a model)"]);
  stdout.write(`\n${formatSummary(summary, extra)}\n`);
  return { summary, steps, evalSteps, rows, output: outputOf(lastRolloutId) };
}
