import { buildDebugDump, type GroupExportOutcome, type TrainingRow } from "@relax/export";
import { buildViewModel, parseViewSource, renderPage } from "@relax/view";
import type { Logger } from "pino";
import { ControlError } from "../control/control-error";
import type {
  ControlRecord,
  HealthResponse,
  PauseResponse,
  ResumeResponse,
  StatusResponse,
} from "../control/control-schemas";
import { createGateControls } from "../control/create-gate-controls";
import type { ControlRecordSink, RolloutService } from "../control/rollout-service";
import { StepDriver } from "../driver/step-driver";
import { EvalFunctionError } from "../errors/eval-function-error";
import { RolloutInterruptedError } from "../errors/rollout-interrupted-error";
import { RolloutStalledError } from "../errors/rollout-stalled-error";
import { StepOrderError } from "../errors/step-order-error";
import { isDiscardedGroup } from "../group/group-outcome";
import type { GroupResult } from "../group/run-group";
import type { RunState } from "../journal/run-dir";
import type { StepResult } from "../step/controller-options";
import type { ServedRun } from "./served-run";

/** How many recent steps and evals `GET /rollout/v1/view` shows. */
const RECENT_STEPS_IN_VIEW = 4;

/** Options of {@link createRolloutService}. */
export interface RolloutServiceOptions {
  runtime: ServedRun;
  /** `sha256:…` of the normalised configuration (status, run-dir state). */
  configHash: string;
  /** Absolute run directory (`state.json` after each step), or undefined. */
  runDir?: string;
  /** The state read from the run directory at start: continue at its rollout id and prompt. */
  resumeFrom?: RunState;
  /** `--run-dir-force`: resume a journaled step started with another configuration. @default false */
  runDirForce?: boolean;
  logger: Logger;
}

/** A {@link RolloutService} plus what `relax serve` needs to stop it. */
export interface ServeService extends RolloutService {
  status(): StatusResponse;
  /** The `relax view` page of the last few steps and evals (the running one with its finished Groups). */
  view(): string;
  /** Resolves when the running step or eval (if any) has finished, successfully or not. */
  idle(): Promise<void>;
  /** The rows file text of finished step `rolloutId` (see {@link StepDriver.readStepRows}). */
  stepRows(request: { rolloutId: number }): Promise<string>;
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
 * The long-lived rollout service of `relax serve` over one {@link ServedRun}, its steps run by the
 * runtime's {@link StepDriver} (the lifecycle `relax rollout` uses): steps run strictly in order
 * (`rollout_id` must be `next_rollout_id`, 409 `step_out_of_order`; one step or eval at a time, 409
 * `step_running`). A step streams `step_start`, then each Group's rows as soon as the Group is exported
 * (`row` records, contiguous per Group) or a `group_dropped` record, then `step_end` with the step's
 * accounting and metrics. Rows, journal and run state are the driver's: each finished Group's rows go to
 * `--output` as the Group finishes, journaled in `<run-dir>/groups.ndjson`, the run state to
 * `<run-dir>/state.json` after the step. A step asked again after a restart (the gateway was killed
 * mid-step) first streams the rows of the Groups its journal kept, then runs only the Groups still owed. A
 * step that fails (e.g. every Group keeps dropping) ends its stream with an `error` record; its rollout id
 * is not consumed, the prompts it took are.
 *
 * Pause / resume / weights go through the runtime's generation gate ({@link createGateControls}); the
 * weight version a step or resume names is set on the gate, so it labels the tokens whose engine answer
 * names no version, and saved in the run dir at once, so a restart keeps the version loaded.
 */
export function createRolloutService(options: RolloutServiceOptions): ServeService {
  return new DrivenRolloutService(options);
}

/** The {@link ServeService} of {@link createRolloutService}. */
class DrivenRolloutService implements ServeService {
  readonly #runtime: ServedRun;
  readonly #driver: StepDriver;
  readonly #logger: Logger;
  readonly #options: RolloutServiceOptions;
  readonly #controls: ReturnType<typeof createGateControls>;
  #running: RunningStep | undefined;
  /** The Groups of the last few steps and evals (the running one filling up), for the view page. */
  readonly #recent: RecentStep[] = [];

  constructor(options: RolloutServiceOptions) {
    this.#options = options;
    this.#runtime = options.runtime;
    this.#logger = options.logger;
    this.#driver = new StepDriver({
      runtime: options.runtime,
      configHash: options.configHash,
      logger: options.logger,
      force: options.runDirForce ?? false,
      ...(options.runDir !== undefined ? { runDir: options.runDir } : {}),
      ...(options.resumeFrom !== undefined ? { saved: options.resumeFrom } : {}),
    });
    this.#controls = createGateControls({
      gate: options.runtime.gate,
      engine: options.runtime.engine,
      stepRunning: () => this.#running !== undefined,
    });
  }

  status(): StatusResponse {
    const runtime = this.#runtime;
    const { gate } = runtime;
    const running = this.#running;
    const size = runtime.prompts.length;
    const taken = runtime.cursor;
    const counts = gate.counts();
    const prelaunched = runtime.controller.prelaunched;
    return {
      state: gate.state !== "open" ? "paused" : running !== undefined ? "running" : "idle",
      next_rollout_id: this.#driver.nextRolloutId,
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
        interval: runtime.steps.evalSchedule.interval ?? null,
        next_eval_rollout_id: this.#nextEvalRolloutId(),
        datasets: runtime.evalDatasets.map((item) => item.name),
      },
      in_flight: {
        generating: counts.generating,
        held: counts.held,
        aborted_partials: counts.abortedPartials,
        prelaunched_groups: prelaunched.groups,
        prelaunched_agents: prelaunched.sessions,
      },
      run_dir: this.#options.runDir ?? null,
      config_hash: this.#options.configHash,
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
  }

  async health(): Promise<HealthResponse> {
    let servers: Awaited<ReturnType<ServedRun["engine"]["health"]>>;
    try {
      servers = await this.#runtime.engine.health();
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
  }

  async runStep(request: StepRequestOptions, sink: ControlRecordSink): Promise<void> {
    const { rolloutId } = request;
    if (this.#running === undefined && rolloutId > this.#driver.nextRolloutId) {
      throw new ControlError({
        code: "step_out_of_order",
        message: `rollout_id ${rolloutId} asked, next is ${this.#driver.nextRolloutId} (steps run in order)`,
        path: "rollout_id",
      });
    }
    const { train } = this.#runtime.steps;
    const step = { rolloutId, mode: "train" as const, groupsTarget: train.groupsPerStep, ...NO_GROUPS };
    if (this.#running === undefined && rolloutId < this.#driver.nextRolloutId) {
      // A finished step asked again (a trainer restarted from an older checkpoint): its journaled rows.
      const text = await this.#readStepRows(rolloutId);
      await this.#claim(step, async (current) => this.#replayStep(rolloutId, text, sink, current));
      return;
    }
    await this.#claim(step, (current) => this.#streamTrainStep(request, sink, current));
  }

  stepRows(request: { rolloutId: number }): Promise<string> {
    return this.#readStepRows(request.rolloutId);
  }

  /** The rows file text of a finished step. @throws ControlError `not_found` (not finished, or file gone) */
  async #readStepRows(rolloutId: number): Promise<string> {
    try {
      return await this.#driver.readStepRows(rolloutId);
    } catch (error) {
      if (StepOrderError.isInstance(error))
        throw new ControlError({ code: "not_found", message: error.message, path: "rollout_id" });
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw new ControlError({
          code: "not_found",
          message: `the rows file of step ${rolloutId} is gone (${(error as Error).message})`,
          path: "rollout_id",
        });
      }
      throw error;
    }
  }

  /** Streams finished step `rolloutId` again from its rows file: no Group runs, the run does not rewind. */
  #replayStep(rolloutId: number, text: string, sink: ControlRecordSink, current: RunningStep): void {
    const { gate, steps } = this.#runtime;
    sink({
      type: "step_start",
      rollout_id: rolloutId,
      mode: "train",
      groups: steps.train.groupsPerStep,
      samples_per_group: steps.train.groupSize,
      weight_version: gate.weightVersion ?? null,
    });
    const groups = new Set<number>();
    for (const line of text.split("\n")) {
      if (line === "") continue;
      const row = JSON.parse(line) as TrainingRow;
      groups.add(row.group_index);
      current.rows++;
      sink({ type: "row", rollout_id: rolloutId, row });
    }
    sink({
      type: "step_end",
      rollout_id: rolloutId,
      summary: {
        groups: groups.size,
        rows: current.rows,
        dropped_groups: 0,
        debt: 0,
        resident_groups: this.#runtime.controller.residentGroups,
        replayed: true,
        wall_s: 0,
        drops_by_reason: {},
        metrics: {},
      },
    });
  }

  async runEvals(
    request: { rolloutId: number; datasets?: string[] },
    sink: ControlRecordSink,
  ): Promise<void> {
    const names = this.#runtime.evalDatasets.map((item) => item.name);
    if (names.length === 0) {
      throw new ControlError({
        code: "not_found",
        message: "no eval datasets: relax serve was started without --eval-prompt-data",
      });
    }
    const chosen = request.datasets ?? names;
    chosen.forEach((name, i) => {
      if (!names.includes(name)) {
        throw new ControlError({
          code: "invalid_body",
          message: `datasets.${i}: unknown eval dataset "${name}" (known: ${names.length > 0 ? names.join(", ") : "none; pass --eval-prompt-data"})`,
          path: `datasets.${i}`,
        });
      }
    });
    const step = { rolloutId: request.rolloutId, mode: "eval" as const, groupsTarget: 0, ...NO_GROUPS };
    await this.#claim(step, async (current) => {
      await this.#streamEvals(request.rolloutId, chosen, sink, current);
      sink({ type: "evals_end", rollout_id: request.rolloutId });
    });
  }

  pause(request: { timeoutMs?: number }): Promise<PauseResponse> {
    return this.#controls.pause(request);
  }

  async resume(request: { weightVersion?: string }): Promise<ResumeResponse> {
    // Label before reopening, so the tokens of continued turns carry the new version.
    if (request.weightVersion !== undefined && this.#runtime.gate.state !== "open")
      await this.#labelEngine(request.weightVersion);
    const answer = await this.#controls.resume(request);
    await this.#saveWeightVersion();
    return answer;
  }

  async updateWeightsFromDisk(request: Parameters<RolloutService["updateWeightsFromDisk"]>[0]) {
    const answer = await this.#controls.updateWeightsFromDisk(request);
    // Loaded on every worker: a restart from here on serves that version (the gate takes it at resume).
    if (answer.success && answer.weight_version !== null)
      await this.#saveWeightVersion(answer.weight_version);
    return answer;
  }

  view(): string {
    return renderRecentSteps(this.#runtime, this.#recent);
  }

  async idle(): Promise<void> {
    await this.#running?.done.catch(() => undefined);
  }

  /** Claims the service for one step or eval, synchronously (so two calls cannot both start). */
  #claim(step: Omit<RunningStep, "done">, run: (current: RunningStep) => Promise<void>): Promise<void> {
    const running = this.#running;
    if (running !== undefined) {
      throw new ControlError({
        code: "step_running",
        message: `${running.mode === "eval" ? "an eval" : "step"} ${running.rolloutId} is running; wait for its end record`,
      });
    }
    const entry = { ...step } as RunningStep;
    entry.done = Promise.resolve()
      .then(() => run(entry))
      .catch(toControlError)
      .finally(() => {
        this.#running = undefined;
      });
    this.#running = entry;
    return entry.done;
  }

  /** One train step through the driver, streamed; a due eval (`--eval-interval`) follows in the same stream. */
  async #streamTrainStep(request: StepRequestOptions, sink: ControlRecordSink, current: RunningStep) {
    const { rolloutId, weightVersion } = request;
    const { gate, steps } = this.#runtime;
    if (weightVersion !== undefined) {
      await this.#labelEngine(weightVersion);
      gate.setWeightVersion(weightVersion);
      await this.#saveWeightVersion();
    }
    sink({
      type: "step_start",
      rollout_id: rolloutId,
      mode: "train",
      groups: steps.train.groupsPerStep,
      samples_per_group: steps.train.groupSize,
      weight_version: gate.weightVersion ?? null,
    });
    // `--eval-interval`: the eval due after the previous step runs now, as slime runs it: after the trainer's
    // weight update (this step's `weight_version`), on the new weights, labelled with the step just trained,
    // before this step's Groups; skipped when the trainer already ran it (`POST /evals` with that id).
    const dueEval = this.#dueEvalBefore(rolloutId);
    if (dueEval !== undefined) {
      await this.#streamEvals(
        dueEval,
        this.#runtime.evalDatasets.map((item) => item.name),
        sink,
        { ...current },
      );
    }
    const drops: Record<string, number> = {};
    const viewed = this.#record({ rolloutId, mode: "train", groups: [] });
    const { step: result } = await this.#driver.runStep({
      rolloutId,
      // A trainer loop has no fixed length: a next step is assumed unless this one is said to be the last.
      nextStepFollows: request.lastStep !== true && request.nextStepFollows !== false,
      // The Groups the journal kept stream first, as if they had just finished (contiguous per Group).
      onResumedRows: (rows, resume) => {
        for (const row of rows) {
          current.rows++;
          sink({ type: "row", rollout_id: rolloutId, row });
        }
        current.groupsDone += resume.exported;
        current.groupsDropped += resume.groups - resume.exported;
      },
      onGroup: (group) => {
        viewed.push(group);
        tallyGroup(current, group, {
          row: (row) => sink({ type: "row", rollout_id: rolloutId, row }),
          dropped: (dropped) => {
            drops[dropped.reason] = (drops[dropped.reason] ?? 0) + 1;
            sink(groupDroppedRecord(rolloutId, dropped));
          },
        });
      },
    });
    sink(stepEndRecord(rolloutId, current, result, this.#runtime, drops));
  }

  /** Runs the named eval datasets one after another through the driver, streaming `eval_row` and `eval_end`. */
  async #streamEvals(
    rolloutId: number,
    names: readonly string[],
    sink: ControlRecordSink,
    current: RunningStep,
  ): Promise<void> {
    const dropped = new Map<string, number>();
    const viewed = new Map<string, GroupResult[]>();
    await this.#driver.runEvals({
      rolloutId,
      datasets: names,
      onGroup: (dataset, group) => {
        if (!viewed.has(dataset))
          viewed.set(dataset, this.#record({ rolloutId, mode: "eval", dataset, groups: [] }));
        viewed.get(dataset)!.push(group);
        tallyGroup(current, group, {
          row: (row) => sink({ type: "eval_row", dataset, row }),
          dropped: () => dropped.set(dataset, (dropped.get(dataset) ?? 0) + 1),
        });
      },
      onDataset: ({ dataset, step, functionResult }) => {
        sink({
          type: "eval_end",
          dataset,
          summary: {
            groups: step.groups.filter((group) => group.kind === "exported").length,
            rows: step.rows.length,
            dropped_groups: dropped.get(dataset) ?? 0,
            wall_s: Number(step.wallSeconds.toFixed(3)),
            metrics: step.metrics,
            // What --eval-function-path returned, as is: the slime adapter hands it to slime's eval logging.
            ...(functionResult !== undefined ? { eval_function: functionResult } : {}),
          },
        });
      },
    });
  }

  #record(entry: RecentStep): GroupResult[] {
    this.#recent.push(entry);
    if (this.#recent.length > RECENT_STEPS_IN_VIEW) this.#recent.shift();
    return entry.groups;
  }

  /**
   * The label of the next scheduled eval: the eval due after train step k (`--eval-interval`) is labelled
   * k and runs at the start of step k + 1; null without a schedule or eval data.
   */
  #nextEvalRolloutId(): number | null {
    const runtime = this.#runtime;
    const interval = runtime.steps.evalSchedule.interval;
    if (interval === undefined || runtime.evalDatasets.length === 0) return null;
    const last = this.#driver.lastEvalRolloutId;
    const from = Math.max(this.#driver.nextRolloutId - 1, last === null ? 0 : last + 1);
    for (let k = from; k < from + interval; k++) if (runtime.evalDue(k)) return k;
    return null;
  }

  /** The label of the eval to run at the start of train step `rolloutId` (due after the step before, not run yet). */
  #dueEvalBefore(rolloutId: number): number | undefined {
    const trained = rolloutId - 1;
    if (trained < 0 || !this.#runtime.evalDue(trained)) return undefined;
    const last = this.#driver.lastEvalRolloutId;
    return last !== null && last >= trained ? undefined : trained;
  }

  async #saveWeightVersion(version?: string): Promise<void> {
    await this.#driver
      .saveWeightVersion(version)
      .catch((error: unknown) => this.#logger.warn({ err: String(error) }, "writing the run state failed"));
  }

  /**
   * Names the version the trainer says the engine now serves on the engine itself (SGLang
   * `/update_weight_version`, `abort_all_requests: false`), so that the engine's own per-token labels, which
   * rows prefer, agree with the trainer (weights loaded by NCCL, for example, leave SGLang's label unchanged).
   * An engine without the endpoint keeps its label; the gate's version still labels tokens it names none for.
   */
  async #labelEngine(version: string): Promise<void> {
    try {
      await this.#runtime.engine.updateWeightVersion({ newVersion: version, abortAllRequests: false });
    } catch (error) {
      this.#logger.warn(
        { err: error instanceof Error ? error.message : String(error), weight_version: version },
        "could not name the weight version on the engine (/update_weight_version); rows keep its own label",
      );
    }
  }
}

type StepRequestOptions = Parameters<RolloutService["runStep"]>[0];

interface RecentStep {
  rolloutId: number;
  mode: "train" | "eval";
  dataset?: string;
  groups: GroupResult[];
}

const NO_GROUPS = { groupsDone: 0, groupsDropped: 0, rows: 0 } as const;

/**
 * A step that stalls (every replacement Group failing), is interrupted (SIGTERM, close) or whose eval
 * function fails (`--eval-function-path`) is not a bug of the service: the trainer gets a code it can act on.
 * @throws always: a `ControlError` for those two, else `error` itself
 */
function toControlError(error: unknown): never {
  if (RolloutStalledError.isInstance(error)) {
    throw new ControlError({ code: "rollout_stalled", message: error.message, cause: error });
  }
  if (RolloutInterruptedError.isInstance(error)) {
    throw new ControlError({ code: "interrupted", message: error.message, cause: error });
  }
  if (EvalFunctionError.isInstance(error)) {
    throw new ControlError({ code: "eval_function_failed", message: error.message, cause: error });
  }
  throw error;
}

/** The `group_dropped` record of a dropped Group. */
function groupDroppedRecord(
  rolloutId: number,
  dropped: Extract<GroupResult, { kind: "dropped" }>,
): ControlRecord {
  return {
    type: "group_dropped",
    rollout_id: rolloutId,
    group_id: dropped.groupId,
    prompt_index: dropped.prompt.index,
    reason: dropped.reason,
    message: dropped.message,
  };
}

/** The `step_end` record: the step's own figures at its close (the controller's live counters reset between steps). */
function stepEndRecord(
  rolloutId: number,
  current: RunningStep,
  result: StepResult,
  runtime: ServedRun,
  drops: Record<string, number>,
): ControlRecord {
  return {
    type: "step_end",
    rollout_id: rolloutId,
    summary: {
      groups: current.groupsDone,
      rows: result.rows.length,
      dropped_groups: current.groupsDropped,
      debt: result.debt ?? 0,
      resident_groups: result.residentGroups ?? runtime.controller.residentGroups,
      queued_groups: result.queuedGroups ?? runtime.controller.queuedGroups,
      wall_s: Number(result.wallSeconds.toFixed(3)),
      drops_by_reason: drops,
      metrics: result.metrics,
    },
  };
}

/** The `relax view` page of the recent steps and evals (the running one with its finished Groups). */
function renderRecentSteps(runtime: ServedRun, recent: readonly RecentStep[]): string {
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
}

/**
 * Counts a finished Group into the running step's figures: an exported Group's rows one by one (`row` for
 * each, in order), a discarded one ({@link isDiscardedGroup}: a drop or an over-sampled surplus) once
 * (`dropped`); a Group interrupted by the run's end counts as neither.
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
  } else if (isDiscardedGroup(group)) {
    current.groupsDropped++;
    on.dropped(group);
  }
}
