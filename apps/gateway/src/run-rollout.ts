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
 */
export async function runRollout(config: RolloutConfig, io: RunIo = {}): Promise<RolloutRun> {
  const stdout = io.stdout ?? process.stdout;
  const logger = io.logger ?? createLogger({ level: config.logLevel });
  const started = performance.now();
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
  const runEvalsAt = async (rolloutId: number) => {
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
  };
  try {
    stdout.write(formatBanner(runtime));
    if (evalPoints.has(0)) await runEvalsAt(0);
    for (let rolloutId = 0; rolloutId < numRollout; rolloutId++) {
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
  const extra: Array<[string, string]> = [["rows written to", outputOf(steps.length - 1)]];
  if (runtime.backend.kind === "standin")
    extra.push(["backend", "stand-in engine (scripted policy, not a model)"]);
  stdout.write(`\n${formatSummary(summary, extra)}\n`);
  return {
    summary,
    steps,
    evals,
    evalSteps: evals.map((run) => run.step),
    rows,
    output: outputOf(steps.length - 1),
  };
}
