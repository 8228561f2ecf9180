import { buildDebugDump, type GroupExportOutcome, type TrainingRow } from "@relax/export";
import { buildViewModel, parseViewSource, renderPage } from "@relax/view";
import type { Logger } from "pino";
import type { StatusResponse } from "../control/control-schemas";
import { createGateControls } from "../control/create-gate-controls";
import { ControlError, type ControlRecordSink, type RolloutService } from "../control/rollout-service";
import {
  RolloutInterruptedError,
  RolloutStalledError,
  type StepResult,
} from "../controller/rollout-controller";
import type { GroupResult } from "../controller/run-group";
import { formatAgenticEvent } from "../report/create-logger";
import { roundMetrics } from "../report/format-banner";
import type { RolloutRuntime } from "../runtime/create-rollout-runtime";
import {
  GROUP_JOURNAL_FILE,
  planStepResume,
  readGroupJournal,
  resetGroupJournal,
  StepRowsWriter,
} from "../runtime/group-journal";
import { type RunState, writeRunState } from "./run-dir";

/** One eval dataset the service can run. */
export interface EvalDataset {
  name: string;
  /**
   * Runs the dataset once as an eval step, calling `onGroup` per finished Group.
   * @throws what `RolloutRuntime.runStep` throws
   */
  run(options: { rolloutId: number; onGroup: (result: GroupResult) => void }): Promise<StepResult>;
}

/**
 * The eval datasets of a runtime as the service sees them: every `--eval-prompt-data NAME PATH`, in the
 * order given, each run as one eval step of the runtime.
 */
export function runtimeEvalDatasets(runtime: RolloutRuntime): EvalDataset[] {
  return runtime.evalDatasets.map(({ name }) => ({
    name,
    run: ({ rolloutId, onGroup }) => runtime.runStep({ rolloutId, mode: "eval", dataset: name, onGroup }),
  }));
}

/** How many recent steps and evals `GET /rollout/v1/view` shows. */
const RECENT_STEPS_IN_VIEW = 4;

/** Options of {@link createRolloutService}. */
export interface RolloutServiceOptions {
  runtime: RolloutRuntime;
  /** `sha256:…` of the normalised configuration (status, run-dir state). */
  configHash: string;
  /** Absolute run directory (`state.json` after each step), or undefined. */
  runDir?: string;
  /** The state read from the run directory at start: continue at its rollout id and prompt. */
  resumeFrom?: RunState;
  /** `--run-dir-force`: resume a journaled step started with another configuration. @default false */
  runDirForce?: boolean;
  logger: Logger;
  /** @default runtimeEvalDatasets(runtime) */
  evalDatasets?: EvalDataset[];
}

/** A {@link RolloutService} plus what `relax serve` needs to stop it. */
export interface ServeService extends RolloutService {
  status(): StatusResponse;
  /** The `relax view` page of the last few steps and evals (the running one with its finished Groups). */
  view(): string;
  /** Resolves when the running step or eval (if any) has finished, successfully or not. */
  idle(): Promise<void>;
}

interface RunningStep {
  rolloutId: number;
  mode: "train" | "eval";
  groupsTarget: number;
  groupsDone: number;
  groupsDropped: number;
  rows: number;
  done: Promise<void>;
}

/**
 * The long-lived rollout service of `relax serve` over one {@link RolloutRuntime}: steps run strictly in
 * order (`rollout_id` must be `next_rollout_id`, 409 `step_out_of_order`; one step or eval at a time,
 * 409 `step_running`). A step streams `step_start`, then each Group's rows as soon as the Group is
 * exported (`row` records, contiguous per Group) or a `group_dropped` record, then `step_end` with the
 * step's accounting and metrics. Each finished Group's rows also go to `--output` as the Group finishes
 * (`{rollout_id}` replaced, written as `<file>.partial` and renamed when the step is complete; appended
 * when the path has no placeholder, as `relax rollout` does), journaled in `<run-dir>/groups.ndjson`; the
 * run state goes to `<run-dir>/state.json` after the step. A step asked again after a restart (the
 * gateway was killed mid-step) first streams the rows of the Groups its journal kept, then runs only the
 * Groups still owed. A step that fails (e.g. every Group keeps dropping) ends its stream with an
 * `error` record; its rollout id is not consumed, the prompts it took are.
 *
 * Pause / resume / weights go through the runtime's generation gate ({@link createGateControls}); the
 * weight version a step or resume names is set on the gate, so it labels the tokens whose engine answer
 * names no version.
 */
export function createRolloutService(options: RolloutServiceOptions): ServeService {
  const { runtime, configHash, runDir, logger } = options;
  const { gate } = runtime;
  const evalDatasets = options.evalDatasets ?? runtimeEvalDatasets(runtime);
  const { train } = runtime.components.steps;
  const output = runtime.components.output;
  let nextRolloutId = 0;
  let lastEvalRolloutId: number | null = null;
  if (options.resumeFrom !== undefined) {
    nextRolloutId = options.resumeFrom.next_rollout_id;
    runtime.cursor = options.resumeFrom.dataset_cursor;
    lastEvalRolloutId = options.resumeFrom.eval.last_rollout_id;
    if (options.resumeFrom.weight_version !== null) gate.setWeightVersion(options.resumeFrom.weight_version);
  }
  let running: RunningStep | undefined;
  /** The Groups of the last few steps and evals (the running one filling up), for the view page. */
  const recent: Array<{
    rolloutId: number;
    mode: "train" | "eval";
    dataset?: string;
    groups: GroupResult[];
  }> = [];
  const record = (entry: (typeof recent)[number]) => {
    recent.push(entry);
    if (recent.length > RECENT_STEPS_IN_VIEW) recent.shift();
    return entry.groups;
  };

  /** The rollout id of the next scheduled eval (`k + 1` after step k), or null without a schedule. */
  const nextEvalRolloutId = (): number | null => {
    const interval = runtime.components.steps.evalSchedule.interval;
    if (interval === undefined || evalDatasets.length === 0) return null;
    for (let k = nextRolloutId; k < nextRolloutId + interval; k++) if (runtime.evalDue(k)) return k + 1;
    return null;
  };

  /** How a step continues after a restart: from the journal, only for the step the run stood at. */
  let resumeChecked = false;
  const resumeOf = async (rolloutId: number) => {
    // Only the first step asked, and only the one the run stood at: a later attempt of a step that
    // failed in this process is a new attempt with its own journal lines.
    if (runDir === undefined || resumeChecked || rolloutId !== (options.resumeFrom?.next_rollout_id ?? 0))
      return undefined;
    resumeChecked = true;
    const { entries, torn } = await readGroupJournal(runDir);
    if (torn > 0)
      logger.warn({ torn_lines: torn }, "the Group journal ends in a torn line; that Group runs again");
    const plan = planStepResume({
      entries,
      rolloutId,
      configHash,
      force: options.runDirForce ?? false,
      journalPath: `${runDir}/${GROUP_JOURNAL_FILE}`,
    });
    return plan;
  };

  const saveState = async () => {
    if (runDir === undefined) return;
    await writeRunState(runDir, {
      config_hash: configHash,
      next_rollout_id: nextRolloutId,
      dataset_cursor: runtime.cursor,
      weight_version: gate.weightVersion ?? null,
      eval: { last_rollout_id: lastEvalRolloutId },
    });
  };

  /** Claims the service for one step or eval, synchronously (so two calls cannot both start). */
  const claim = (step: Omit<RunningStep, "done">, run: () => Promise<void>): Promise<void> => {
    if (running !== undefined) {
      throw new ControlError({
        code: "step_running",
        message: `${running.mode === "eval" ? "an eval" : "step"} ${running.rolloutId} is running; wait for its end record`,
      });
    }
    const entry = { ...step } as RunningStep;
    entry.done = Promise.resolve()
      .then(run)
      .catch((error: unknown) => {
        // A step that stalls (every replacement Group failing) or is interrupted (SIGTERM, close) is not a
        // bug of the service: the trainer gets a code it can act on.
        if (RolloutStalledError.isInstance(error)) {
          throw new ControlError({ code: "rollout_stalled", message: error.message, cause: error });
        }
        if (RolloutInterruptedError.isInstance(error)) {
          throw new ControlError({ code: "interrupted", message: error.message, cause: error });
        }
        throw error;
      })
      .finally(() => {
        running = undefined;
      });
    running = entry;
    return entry.done;
  };

  /** Runs the named eval datasets one after another, streaming `eval_row` and `eval_end` records. */
  const streamEvals = async (
    rolloutId: number,
    names: readonly string[],
    sink: ControlRecordSink,
    current: RunningStep,
  ): Promise<void> => {
    for (const name of names) {
      const dataset = evalDatasets.find((item) => item.name === name)!;
      let dropped = 0;
      const viewed = record({ rolloutId, mode: "eval", dataset: name, groups: [] });
      const result = await dataset.run({
        rolloutId,
        onGroup: (group) => {
          viewed.push(group);
          tallyGroup(current, group, {
            row: (row) => sink({ type: "eval_row", dataset: name, row }),
            dropped: () => dropped++,
          });
        },
      });
      logger.info(
        roundMetrics(result.metrics),
        formatAgenticEvent("eval_metrics", { rollout: rolloutId, dataset: name }),
      );
      sink({
        type: "eval_end",
        dataset: name,
        summary: {
          groups: result.groups.filter((group) => group.kind === "exported").length,
          rows: result.rows.length,
          dropped_groups: dropped,
          wall_s: Number(result.wallSeconds.toFixed(3)),
          metrics: result.metrics,
        },
      });
    }
  };

  /**
   * Names the version the trainer says the engine now serves on the engine itself (SGLang
   * `/update_weight_version`, `abort_all_requests: false`), so that the engine's own per-token labels, which
   * rows prefer, agree with the trainer (weights loaded by NCCL, for example, leave SGLang's label unchanged).
   * An engine without the endpoint keeps its label; the gate's version still labels tokens it names none for.
   */
  const labelEngine = async (version: string): Promise<void> => {
    try {
      await runtime.engine.updateWeightVersion({ newVersion: version, abortAllRequests: false });
    } catch (error) {
      logger.warn(
        { err: error instanceof Error ? error.message : String(error), weight_version: version },
        "could not name the weight version on the engine (/update_weight_version); rows keep its own label",
      );
    }
  };

  const controls = createGateControls({
    gate,
    engine: runtime.engine,
    stepRunning: () => running !== undefined,
  });

  return {
    status: (): StatusResponse => {
      const size = runtime.prompts.length;
      const taken = runtime.cursor;
      return {
        state: gate.state !== "open" ? "paused" : running !== undefined ? "running" : "idle",
        next_rollout_id: nextRolloutId,
        weight_version: gate.weightVersion ?? null,
        step:
          running === undefined
            ? null
            : {
                rollout_id: running.rolloutId,
                mode: running.mode,
                groups_target: running.groupsTarget,
                groups_done: running.groupsDone,
                groups_dropped: running.groupsDropped,
                rows: running.rows,
              },
        dataset: { size, cursor: taken % size, epoch: Math.floor(taken / size) },
        eval: {
          interval: runtime.components.steps.evalSchedule.interval ?? null,
          next_eval_rollout_id: nextEvalRolloutId(),
          datasets: evalDatasets.map((item) => item.name),
        },
        in_flight: (() => {
          const counts = gate.counts();
          return {
            generating: counts.generating,
            held: counts.held,
            aborted_partials: counts.abortedPartials,
          };
        })(),
        run_dir: runDir ?? null,
        config_hash: configHash,
        backend: runtime.backend.kind,
        engine_faults: {
          held: runtime.engineFaults.held,
          outages: runtime.engineFaults.counters.outages,
          held_turns: runtime.engineFaults.counters.heldTurns,
          resumed_turns: runtime.engineFaults.counters.resumedTurns,
          failed_turns: runtime.engineFaults.counters.exhaustedTurns,
          stalled_calls: runtime.engineFaults.counters.stalledCalls,
        },
      };
    },

    health: async () => {
      let servers: Awaited<ReturnType<typeof runtime.engine.health>>;
      try {
        servers = await runtime.engine.health();
      } catch (error) {
        return {
          ok: false,
          error: {
            code: "backend_unavailable",
            message: error instanceof Error ? error.message : String(error),
          },
        };
      }
      const unhealthy = servers.filter((server) => !server.ok);
      if (unhealthy.length === 0) return { ok: true };
      return {
        ok: false,
        error: {
          code: "backend_unavailable",
          message: `the inference engine is not healthy: ${unhealthy
            .map((server) => `${server.url} (${server.error ?? `HTTP ${server.status}`})`)
            .join(", ")}`,
        },
      };
    },

    runStep: async (
      { rolloutId, weightVersion, nextStepFollows, finalBackfill },
      sink: ControlRecordSink,
    ) => {
      if (running === undefined && rolloutId !== nextRolloutId) {
        throw new ControlError({
          code: "step_out_of_order",
          message: `rollout_id ${rolloutId} asked, next is ${nextRolloutId}`,
          path: "rollout_id",
        });
      }
      const step = {
        rolloutId,
        mode: "train" as const,
        groupsTarget: train.groupsPerStep,
        groupsDone: 0,
        groupsDropped: 0,
        rows: 0,
      };
      await claim(step, async () => {
        const current = running!;
        if (weightVersion !== undefined) {
          await labelEngine(weightVersion);
          gate.setWeightVersion(weightVersion);
        }
        sink({
          type: "step_start",
          rollout_id: rolloutId,
          mode: "train",
          groups: train.groupsPerStep,
          samples_per_group: train.groupSize,
          weight_version: gate.weightVersion ?? null,
        });
        const drops: Record<string, number> = {};
        const viewed = record({ rolloutId, mode: "train", groups: [] });
        const resume = await resumeOf(rolloutId);
        const perStep = output.includes("{rollout_id}");
        const startCursor = runtime.cursor;
        if (resume !== undefined) runtime.cursor = resume.nextCursor;
        const writer = await StepRowsWriter.open({
          rolloutId,
          path: output.replaceAll("{rollout_id}", String(rolloutId)),
          perStep,
          append: !perStep && rolloutId > 0,
          cursor: startCursor,
          configHash,
          ...(runDir !== undefined ? { runDir } : {}),
          ...(resume !== undefined ? { resume } : {}),
        });
        const earlier = resume !== undefined ? await StepRowsWriter.readResumedRows(resume, writer.file) : [];
        // The Groups the journal kept stream first, as if they had just finished (contiguous per Group).
        for (const row of earlier) {
          current.rows++;
          sink({ type: "row", rollout_id: rolloutId, row });
        }
        current.groupsDone += resume?.exported ?? 0;
        current.groupsDropped += (resume?.groups ?? 0) - (resume?.exported ?? 0);
        const remaining = train.groupsPerStep - (resume?.exported ?? 0);
        let result: StepResult;
        try {
          result =
            remaining <= 0
              ? { rolloutId, mode: "train", rows: [], groups: [], metrics: {}, wallSeconds: 0 }
              : await runtime.runStep({
                  rolloutId,
                  mode: "train",
                  groups: remaining,
                  ...(nextStepFollows !== undefined ? { nextStepFollows } : {}),
                  ...(finalBackfill !== undefined ? { finalBackfill } : {}),
                  ...(resume !== undefined
                    ? { resumeCursors: resume.pendingCursors, firstGroupIndex: resume.firstGroupIndex }
                    : {}),
                  onGroup: (group, info) => {
                    writer.add(group, info);
                    viewed.push(group);
                    tallyGroup(current, group, {
                      row: (row) => sink({ type: "row", rollout_id: rolloutId, row }),
                      dropped: (dropped) => {
                        drops[dropped.reason] = (drops[dropped.reason] ?? 0) + 1;
                        sink({
                          type: "group_dropped",
                          rollout_id: rolloutId,
                          group_id: dropped.groupId,
                          prompt_index: dropped.prompt.index,
                          reason: dropped.reason,
                          message: dropped.message,
                        });
                      },
                    });
                  },
                });
        } finally {
          // Every finished Group is on disk (and journaled) before an error leaves the step.
          await writer
            .flush()
            .catch((error: unknown) => logger.error({ err: String(error) }, "writing rows failed"));
          // The prompts a failed step took stay taken: the state on disk follows the cursor either way.
          await saveState().catch((error: unknown) =>
            logger.warn({ err: String(error) }, "writing the run state failed"),
          );
        }
        await writer.finish();
        if (earlier.length > 0) result = { ...result, rows: [...earlier, ...result.rows] };
        nextRolloutId = rolloutId + 1;
        await saveState();
        if (runDir !== undefined) await resetGroupJournal(runDir);
        logger.info(roundMetrics(result.metrics), formatAgenticEvent("metrics", { rollout: rolloutId }));
        const trainSummary = {
          groups: current.groupsDone,
          dropped_groups: current.groupsDropped,
          // The step's own figures at its close (the controller's live counters reset between steps).
          debt: result.debt ?? 0,
          resident_groups: result.residentGroups ?? runtime.controller.residentGroups,
          final_backfill: result.finalBackfill ?? false,
        };
        // `--eval-interval`: a due eval runs after the train Groups, in the same stream, under rollout id
        // k + 1 (the policy the next step samples from), as `relax rollout` labels it.
        if (runtime.evalDue(rolloutId)) {
          // Counted apart: the step's status keeps its train Group counts.
          await streamEvals(
            rolloutId + 1,
            evalDatasets.map((item) => item.name),
            sink,
            { ...current },
          );
          lastEvalRolloutId = rolloutId + 1;
          await saveState();
        }
        sink({
          type: "step_end",
          rollout_id: rolloutId,
          summary: {
            groups: trainSummary.groups,
            rows: result.rows.length,
            dropped_groups: trainSummary.dropped_groups,
            debt: trainSummary.debt,
            resident_groups: trainSummary.resident_groups,
            final_backfill: trainSummary.final_backfill,
            wall_s: Number(result.wallSeconds.toFixed(3)),
            drops_by_reason: drops,
            metrics: result.metrics,
          },
        });
      });
    },

    runEvals: async ({ rolloutId, datasets }, sink) => {
      const names = evalDatasets.map((item) => item.name);
      const chosen = datasets ?? names;
      chosen.forEach((name, i) => {
        if (!names.includes(name)) {
          throw new ControlError({
            code: "invalid_body",
            message: `datasets.${i}: unknown eval dataset "${name}" (known: ${names.length > 0 ? names.join(", ") : "none; pass --eval-prompt-data"})`,
            path: `datasets.${i}`,
          });
        }
      });
      const step = {
        rolloutId,
        mode: "eval" as const,
        groupsTarget: 0,
        groupsDone: 0,
        groupsDropped: 0,
        rows: 0,
      };
      await claim(step, async () => {
        await streamEvals(rolloutId, chosen, sink, running!);
        lastEvalRolloutId = rolloutId;
        await saveState();
        sink({ type: "evals_end", rollout_id: rolloutId });
      });
    },

    pause: controls.pause,
    resume: async (request) => {
      // Label before reopening, so the tokens of continued turns carry the new version.
      if (request.weightVersion !== undefined && gate.state !== "open")
        await labelEngine(request.weightVersion);
      return controls.resume(request);
    },
    updateWeightsFromDisk: controls.updateWeightsFromDisk,

    view: () => {
      const decode = (ids: number[]) => runtime.tokenizer.decode(ids, { skipSpecialTokens: false });
      const sources = recent.map((step) => {
        const outcomes: GroupExportOutcome[] = step.groups.flatMap((group) =>
          group.export ? [group.export] : [],
        );
        const dump = buildDebugDump({
          rolloutStep: step.dataset !== undefined ? `${step.rolloutId}_${step.dataset}` : step.rolloutId,
          mode: step.mode,
          outcomes,
          decode,
          sessions: new Map(
            step.groups.flatMap((group) =>
              group.export
                ? [
                    [
                      group.export.groupIndex,
                      group.sessions.map((session) => ({ sessionId: session.id, forest: session.forest })),
                    ] as const,
                  ]
                : [],
            ),
          ),
        });
        const name = `${step.mode === "eval" ? `eval-${step.dataset}-` : "step-"}${step.rolloutId}`;
        return parseViewSource(name, JSON.stringify(dump));
      });
      return renderPage(
        buildViewModel({
          sources,
          decodeToken: (id: number) => runtime.tokenizer.decode([id], { skipSpecialTokens: false }),
        }),
      );
    },

    idle: async () => {
      await running?.done.catch(() => undefined);
    },
  };
}

/**
 * Counts a finished Group into the running step's figures: an exported Group's rows one by one (`row` for
 * each, in order), a dropped one once (`dropped`); a Group interrupted by the run's end counts as neither.
 */
function tallyGroup(
  current: RunningStep,
  group: GroupResult,
  on: {
    row: (row: TrainingRow) => void;
    dropped: (group: Extract<GroupResult, { kind: "dropped" }>) => void;
  },
): void {
  if (group.kind === "exported") {
    current.groupsDone++;
    for (const row of group.export.rows) {
      current.rows++;
      on.row(row);
    }
  } else if (group.reason !== "interrupted") {
    current.groupsDropped++;
    on.dropped(group);
  }
}
