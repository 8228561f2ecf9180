import { resolve } from "node:path";
import type { TrainingRow } from "@relax/export";
import type { LaunchAgent, StepResult } from "@relax/rollout";
import { createLogger, type EvalRun, evalRolloutIds, openRunDir, StepDriver } from "@relax/rollout";
import type { RolloutConfig, RolloutRuntime } from "@relax/runtime";
import { createRolloutRuntime, hashRolloutConfig } from "@relax/runtime";
import type { Logger } from "pino";
import { standinStarter } from "./engine/standin-starter";
import { formatBanner } from "./report/format-banner";
import { formatSummary, type RunSummary, summarizeRun } from "./report/format-summary";

export { BackendUnavailableError } from "@relax/agent-api";

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
 * each finished Group's training rows (JSONL) as the Group finishes (appended and fsynced; a per-step
 * `{rollout_id}` file is written as `<file>.partial` and renamed when its step is complete), runs the eval datasets one after another at the points of
 * {@link evalRolloutIds} (`--eval-interval`; without it once, after the last train step), logs each
 * dataset's metrics under `eval/<name>/` and prints a summary. Eval rows are never written to the rows
 * file. Everything it started is stopped before it returns or throws.
 *
 * The steps run through the runtime's {@link StepDriver} (the one step lifecycle, shared with `relax serve`).
 * With `runDir`, `<run-dir>/state.json` is written after each train step and `<run-dir>/groups.ndjson`
 * journals each finished Group of the running step; a run started on a directory that has them continues
 * at its rollout id and dataset cursor, after the last journaled Group of a step that was killed mid-way
 * (its finished Groups are kept, not repeated; the prompts it had in flight run again), running the steps up to
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
    standin: standinStarter,
    ...(io.signal !== undefined ? { signal: io.signal } : {}),
    ...(io.launchAgent !== undefined ? { launchAgent: io.launchAgent } : {}),
  });
  const driver = new StepDriver({
    runtime,
    configHash,
    logger,
    force: config.runDirForce,
    ...(runDir !== undefined ? { runDir } : {}),
    ...(saved !== undefined ? { saved } : {}),
  });
  const firstRolloutId = driver.nextRolloutId;
  const done: { steps: StepResult[]; evals: EvalRun[] } = { steps: [], evals: [] };
  try {
    const resume = await driver.planResume();
    stdout.write(formatBanner(runtime));
    if (resume !== undefined) {
      stdout.write(
        `  run dir   ${runDir}: step ${resume.rolloutId} continues after ${resume.groups} journaled Group(s) (${resume.exported} exported); ${resume.pendingCursors.length} prompt(s) in flight run again\n`,
      );
    } else if (saved !== undefined) {
      stdout.write(
        `  run dir   ${runDir}: continuing at rollout ${firstRolloutId}, prompt ${saved.dataset_cursor % runtime.prompts.length}\n`,
      );
    }
    await runSteps(runtime, driver, done);
  } finally {
    await runtime.close();
  }
  return reportRun({ runtime, stdout, runDir, firstRolloutId, started, ...done });
}

/**
 * The train steps from the driver's next rollout id up to `--num-rollout` (each one a full batch of
 * `--rollout-batch-size` Groups, also with the cross-step flags: no back-fill step), and the eval datasets at
 * the points of {@link evalRolloutIds} (an eval the run dir says already ran is not repeated; one due where a
 * restart picks up runs first).
 */
async function runSteps(
  runtime: RolloutRuntime,
  driver: StepDriver,
  done: { steps: StepResult[]; evals: EvalRun[] },
): Promise<void> {
  const { numRollout, evalSchedule } = runtime.components.steps;
  const evalPoints =
    runtime.evalDatasets.length > 0 ? new Set(evalRolloutIds(evalSchedule, numRollout)) : new Set();
  const runEvalsAt = async (rolloutId: number) => {
    const last = driver.lastEvalRolloutId;
    if (!evalPoints.has(rolloutId) || (last !== null && rolloutId <= last)) return;
    await driver.runEvals({ rolloutId, onDataset: (run) => done.evals.push(run) });
  };
  const first = driver.nextRolloutId;
  if (first <= numRollout) await runEvalsAt(first);
  for (let rolloutId = first; rolloutId < numRollout; rolloutId++) {
    done.steps.push((await driver.runStep({ rolloutId })).step);
    // An eval after step k evaluates the policy of step k + 1 and carries that rollout id.
    await runEvalsAt(rolloutId + 1);
  }
}

/** The run's summary table on `stdout`, and what {@link runRollout} returns. */
function reportRun(run: {
  runtime: RolloutRuntime;
  stdout: NodeJS.WritableStream;
  runDir: string | undefined;
  firstRolloutId: number;
  started: number;
  steps: StepResult[];
  evals: EvalRun[];
}): RolloutRun {
  const { runtime, steps, evals, firstRolloutId } = run;
  const { output } = runtime.components;
  const outputOf = (rolloutId: number) => output.replaceAll("{rollout_id}", String(rolloutId));
  const rows = steps.flatMap((step) => step.rows);
  const summary = summarizeRun({
    rows,
    ...(evals.length > 0
      ? {
          evalRows: evals.flatMap((item) => item.step.rows),
          evalRuns: evals.map((item) => ({
            dataset: item.dataset,
            rolloutId: item.step.rolloutId,
            rows: item.step.rows,
            ...(item.functionMetrics !== undefined ? { functionMetrics: item.functionMetrics } : {}),
          })),
        }
      : {}),
    counters: runtime.reporter.counters,
    steps: steps.length,
    wallSeconds: (performance.now() - run.started) / 1000,
  });
  const lastRolloutId = firstRolloutId + steps.length - 1;
  const extra: Array<[string, string]> =
    steps.length > 0
      ? [
          [
            "rows written to",
            output.includes("{rollout_id}")
              ? `${output} (rollout ${firstRolloutId}..${lastRolloutId})`
              : outputOf(lastRolloutId),
          ],
        ]
      : [["rows written to", `nothing: ${run.runDir} already holds ${firstRolloutId} step(s)`]];
  if (runtime.shards !== undefined) {
    const status = runtime.shards.status();
    const restarts = status.reduce((sum, shard) => sum + shard.restarts, 0);
    const down = status.filter((shard) => shard.state === "down").length;
    extra.push([
      "gateway shards",
      `${status.length} (restarts ${restarts}${down > 0 ? `, ${down} down` : ""})`,
    ]);
  }
  if (runtime.backend.kind === "standin")
    extra.push(["backend", "stand-in engine (scripted policy, not a model)"]);
  run.stdout.write(`\n${formatSummary(summary, extra)}\n`);
  return {
    summary,
    steps,
    evals,
    evalSteps: evals.map((item) => item.step),
    rows,
    output: outputOf(lastRolloutId),
  };
}
