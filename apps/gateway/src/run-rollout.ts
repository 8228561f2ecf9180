import { resolve } from "node:path";
import { type TrainingRow, writeTrainingRowsFile } from "@relax/export";
import type { Logger } from "pino";
import type { RolloutConfig } from "./config/rollout-config";
import type { StepResult } from "./controller/rollout-controller";
import type { LaunchAgent } from "./controller/run-group";
import { createLogger, formatAgenticEvent } from "./report/create-logger";
import { formatBanner, roundMetrics } from "./report/format-banner";
import { formatSummary, type RunSummary, summarizeRun } from "./report/format-summary";
import { createRolloutRuntime, type EvalRun } from "./runtime/create-rollout-runtime";
import { evalRolloutIds } from "./runtime/eval-schedule";
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
  /** Every eval dataset run, in the order run (each eval point runs the datasets in configured order). */
  evals: EvalRun[];
  /** The steps of {@link evals}. */
  evalSteps: StepResult[];
  rows: TrainingRow[];
  /** The rows file written (with `{rollout_id}` of the last step replaced). */
  output: string;
}

/**
 * Runs `relax rollout`: starts a {@link createRolloutRuntime | rollout runtime} (tokenizer, export
 * pipeline, datasets, SGLang or the stand-in engine, the gateway), runs `numRollout` train steps, writes
 * training rows (JSONL) after each train step, runs the eval datasets one after another at the points of
 * {@link evalRolloutIds} (`--eval-interval`; without it once, after the last train step), logs each
 * dataset's metrics under `eval/<name>/` and prints a summary. Eval rows are never written to the rows
 * file. Everything it started is stopped before it returns or throws.
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
  const evals: EvalRun[] = [];
  const { numRollout, evalSchedule } = runtime.components.steps;
  const evalPoints =
    runtime.evalDatasets.length > 0 ? new Set(evalRolloutIds(evalSchedule, numRollout)) : new Set();
  const firstRolloutId = saved?.next_rollout_id ?? 0;
  if (saved !== undefined) runtime.cursor = saved.dataset_cursor;
  let lastEval: number | null = saved?.eval.last_rollout_id ?? null;
  const runEvalsAt = async (rolloutId: number) => {
    // A restart does not repeat an eval the run dir says already ran.
    if (lastEval !== null && rolloutId <= lastEval) return;
    await runtime.runEvals({
      rolloutId,
      // Log each dataset as it finishes, so a later dataset that fails does not take its metrics along.
      onDataset: (run) => {
        evals.push(run);
        logger.info(
          roundMetrics(run.step.metrics),
          formatAgenticEvent("eval_metrics", { rollout: rolloutId, dataset: run.dataset }),
        );
      },
    });
    lastEval = rolloutId;
  };
  try {
    stdout.write(formatBanner(runtime));
    if (saved !== undefined) {
      stdout.write(
        `  run dir   ${runDir}: continuing at rollout ${firstRolloutId}, prompt ${saved.dataset_cursor % runtime.prompts.length}\n`,
      );
    }
    if (firstRolloutId === 0 && evalPoints.has(0)) await runEvalsAt(0);
    for (let rolloutId = firstRolloutId; rolloutId < numRollout; rolloutId++) {
      const step = await runtime.runStep({ rolloutId, mode: "train" });
      steps.push(step);
      await writeTrainingRowsFile({
        path: outputOf(rolloutId),
        rows: step.rows,
        append: !output.includes("{rollout_id}") && rolloutId > 0,
      });
      logger.info(roundMetrics(step.metrics), formatAgenticEvent("metrics", { rollout: rolloutId }));
      // An eval after step k evaluates the policy of step k + 1 and carries that rollout id.
      if (evalPoints.has(rolloutId + 1)) await runEvalsAt(rolloutId + 1);
      if (runDir !== undefined) {
        await writeRunState(runDir, {
          config_hash: configHash,
          next_rollout_id: rolloutId + 1,
          dataset_cursor: runtime.cursor,
          weight_version: saved?.weight_version ?? null,
          eval: { last_rollout_id: lastEval },
        });
      }
    }
    // --fully-async: the last step may close with debt carried by resident Groups; a final back-fill
    // step (rollout id = --num-rollout) drains it without opening a new partition.
    if (steps.length > 0 && runtime.controller.carriedDebt > 0) {
      const step = await runtime.runStep({ rolloutId: numRollout, mode: "train", finalBackfill: true });
      steps.push(step);
      await writeTrainingRowsFile({
        path: outputOf(numRollout),
        rows: step.rows,
        append: !output.includes("{rollout_id}"),
      });
      logger.info(roundMetrics(step.metrics), formatAgenticEvent("metrics", { rollout: numRollout }));
    }
  } finally {
    await runtime.close();
  }

  const rows = steps.flatMap((step) => step.rows);
  const summary = summarizeRun({
    rows,
    ...(evals.length > 0
      ? {
          evalRows: evals.flatMap((run) => run.step.rows),
          evalRuns: evals.map((run) => ({
            dataset: run.dataset,
            rolloutId: run.step.rolloutId,
            rows: run.step.rows,
          })),
        }
      : {}),
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
  return {
    summary,
    steps,
    evals,
    evalSteps: evals.map((run) => run.step),
    rows,
    output: outputOf(lastRolloutId),
  };
}
