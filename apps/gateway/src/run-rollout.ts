import { resolve } from "node:path";
import type { TrainingRow } from "@relax/export";
import type { LaunchAgent, RolloutConfig, StepResult } from "@relax/runtime";
import {
  createLogger,
  createRolloutRuntime,
  type EvalRun,
  evalRolloutIds,
  formatAgenticEvent,
  GROUP_JOURNAL_FILE,
  hashRolloutConfig,
  openRunDir,
  planStepResume,
  readGroupJournal,
  resetGroupJournal,
  roundMetrics,
  StepRowsWriter,
  writeRunState,
} from "@relax/runtime";
import type { Logger } from "pino";
import { formatBanner } from "./report/format-banner";
import { formatSummary, type RunSummary, summarizeRun } from "./report/format-summary";

export { BackendUnavailableError } from "@relax/runtime";

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
  const perStep = output.includes("{rollout_id}");
  const batch = runtime.components.steps.train.groupsPerStep ?? runtime.prompts.length;
  let resume: ReturnType<typeof planStepResume>;
  if (runDir !== undefined) {
    try {
      const journal = await readGroupJournal(runDir);
      if (journal.torn > 0) {
        logger.warn(
          { journal: resolve(runDir, GROUP_JOURNAL_FILE), torn_lines: journal.torn },
          "the Group journal ends in a torn line (a crash during its write); that Group runs again",
        );
      }
      resume = planStepResume({
        entries: journal.entries,
        rolloutId: firstRolloutId,
        configHash,
        force: config.runDirForce,
        journalPath: resolve(runDir, GROUP_JOURNAL_FILE),
      });
    } catch (error) {
      await runtime.close();
      throw error;
    }
  }
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
    if (resume !== undefined) {
      stdout.write(
        `  run dir   ${runDir}: step ${resume.rolloutId} continues after ${resume.groups} journaled Group(s) (${resume.exported} exported); ${resume.pendingCursors.length} prompt(s) in flight run again\n`,
      );
    } else if (saved !== undefined) {
      stdout.write(
        `  run dir   ${runDir}: continuing at rollout ${firstRolloutId}, prompt ${saved.dataset_cursor % runtime.prompts.length}\n`,
      );
    }
    if (firstRolloutId === 0 && evalPoints.has(0)) await runEvalsAt(0);
    for (let rolloutId = firstRolloutId; rolloutId < numRollout; rolloutId++) {
      const stepResume = resume?.rolloutId === rolloutId ? resume : undefined;
      resume = undefined;
      const startCursor = runtime.cursor;
      if (stepResume !== undefined) runtime.cursor = stepResume.nextCursor;
      const writer = await StepRowsWriter.open({
        rolloutId,
        path: outputOf(rolloutId),
        perStep,
        append: !perStep && rolloutId > 0,
        cursor: startCursor,
        configHash,
        ...(runDir !== undefined ? { runDir } : {}),
        ...(stepResume !== undefined ? { resume: stepResume } : {}),
      });
      const earlier =
        stepResume !== undefined ? await StepRowsWriter.readResumedRows(stepResume, writer.file) : [];
      const remaining = batch - (stepResume?.exported ?? 0);
      let step: StepResult;
      try {
        step =
          remaining > 0
            ? await runtime.runStep({
                rolloutId,
                mode: "train",
                groups: remaining,
                onGroup: (result, info) => writer.add(result, info),
                ...(stepResume !== undefined
                  ? { resumeCursors: stepResume.pendingCursors, firstGroupIndex: stepResume.firstGroupIndex }
                  : {}),
              })
            : { rolloutId, mode: "train", rows: [], groups: [], metrics: {}, wallSeconds: 0 };
      } finally {
        // Whatever finished is on disk before the error (interrupt, stall) leaves this function.
        await writer
          .flush()
          .catch((error: unknown) => logger.error({ err: String(error) }, "writing rows failed"));
      }
      await writer.finish();
      if (earlier.length > 0) step = { ...step, rows: [...earlier, ...step.rows] };
      steps.push(step);
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
        // state.json now says the step is done: its journal lines are spent.
        await resetGroupJournal(runDir);
      }
    }
    // --fully-async: the last step may close with debt carried by resident Groups; a final back-fill
    // step (rollout id = --num-rollout) drains it without opening a new partition.
    if (steps.length > 0 && runtime.controller.carriedDebt > 0) {
      // Its rows are written per Group like any step's; it is not journaled (a restart does not redo it).
      const writer = await StepRowsWriter.open({
        rolloutId: numRollout,
        path: outputOf(numRollout),
        perStep,
        append: !perStep,
        cursor: runtime.cursor,
        configHash,
      });
      let step: StepResult;
      try {
        step = await runtime.runStep({
          rolloutId: numRollout,
          mode: "train",
          finalBackfill: true,
          onGroup: (result, info) => writer.add(result, info),
        });
      } finally {
        await writer
          .flush()
          .catch((error: unknown) => logger.error({ err: String(error) }, "writing rows failed"));
      }
      await writer.finish();
      steps.push(step);
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
      ? [
          [
            "rows written to",
            output.includes("{rollout_id}")
              ? `${output} (rollout ${firstRolloutId}..${lastRolloutId})`
              : outputOf(lastRolloutId),
          ],
        ]
      : [["rows written to", `nothing: ${runDir} already holds ${firstRolloutId} step(s)`]];
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
