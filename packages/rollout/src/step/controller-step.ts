import { type ExportMode, type TrainingRow, writeDebugDump } from "@relax/export";
import { RolloutInterruptedError } from "../errors/rollout-interrupted-error";
import { isDroppedGroup } from "../group/group-outcome";
import type { GroupResult } from "../group/run-group";
import { formatAgenticEvent } from "../report/create-logger";
import type {
  ControllerStepOptions,
  GroupLaunchInfo,
  RolloutControllerOptions,
  StepResult,
} from "./controller-options";
import { GroupTally } from "./group-tally";
import { stepMetrics } from "./step-metrics";

/** What the Groups of a step left behind at its close, as its {@link StepScheduler} counts them. */
export interface PoolAtClose {
  /** `resident_groups`: Groups alive after the close. */
  residentGroups: number;
  /** `interrupted_groups`: Groups the close interrupted, or (cross-step) left interrupted. */
  interruptedGroups: number;
  /**
   * Train steps (they run on the cross-step resident pool): finished Groups queued for the next step. A
   * train step's result carries them with its debt and resident Groups; `logged`: `accounting_*` lines show
   * them (with a cross-step flag or prelaunch).
   */
  queue?: { groups: number; logged: boolean };
}

/**
 * How a kind of step runs its Groups: where they come from, how many run at once, what a close does to the
 * ones still running. The train scheduler runs them on the resident pool (cross-step carry-over, prelaunch,
 * over-sampling); the eval scheduler runs a step's own Groups, none of that. The rest of a step, its
 * bookkeeping and accounting, is {@link ControllerStep}, the same for both.
 */
export interface StepScheduler {
  /** The eval dataset's name (an eval step given one): metric prefix, debug dump name, `dataset=` field. */
  readonly dataset: string | undefined;
  /** Before the step's `accounting_start` (train: Group indices, the current step). */
  prepare(step: ControllerStep): void;
  /** Fields `accounting_start` adds after `groups=` (train with a cross-step flag or prelaunch: the pool's). */
  startFields(): Record<string, number>;
  /** After `accounting_start` (train: carried and prelaunched Groups leased, a paused gate reopened). */
  open(step: ControllerStep): void;
  /** Runs Groups, {@link ControllerStep.record}ing each finished one, until the step may close; then closes it. */
  schedule(step: ControllerStep): Promise<void>;
  /** The step has closed and owes nothing more: its Groups' figures at the close. */
  closed(step: ControllerStep): PoolAtClose;
  /** The step was interrupted: ends what must end with it (train: every resident Group). */
  interrupted(): Promise<void>;
  /** The step returned its result (train, fully async + prelaunch: freed slots are refilled between steps). */
  stepReturned(step: ControllerStep): void;
}

/**
 * One rollout step, train or eval: its options, its tally, the Groups it recorded and its accounting, the
 * `accounting_start` / `accounting_end` lines (`accounting_end` also for a step that stalls or is
 * interrupted, with its real debt), the reporter's step, metrics and the debug dump. Its
 * {@link StepScheduler} runs its Groups.
 */
export class ControllerStep {
  readonly options: ControllerStepOptions;
  /** Groups this step must export: its batch. */
  readonly demand: number;
  /** `performance.now()` at the open, for `wall_s`. */
  readonly started = performance.now();
  /** The run's signal and the step's own, combined; aborted: the step is interrupted. */
  readonly signal: AbortSignal | undefined;
  readonly tally: GroupTally;
  /** Every Group recorded, in the order they finished. */
  readonly results: GroupResult[] = [];
  /** The exported ones among them. */
  readonly exported: GroupResult[] = [];
  readonly #context: RolloutControllerOptions;
  readonly #scheduler: StepScheduler;

  constructor(context: RolloutControllerOptions, options: ControllerStepOptions, scheduler: StepScheduler) {
    const { rolloutId, groupsPerStep } = options;
    const { logger, reporter, engineHealth } = context;
    this.#context = context;
    this.#scheduler = scheduler;
    this.options = options;
    this.demand = groupsPerStep;
    const signals = [context.group.signal, options.signal].filter((item) => item !== undefined);
    this.signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
    const maxConsecutiveDrops = context.maxConsecutiveDrops ?? Math.max(8, 3 * groupsPerStep);
    this.tally = new GroupTally({ rolloutId, maxConsecutiveDrops, logger, reporter, engineHealth });
  }

  get rolloutId(): number {
    return this.options.rolloutId;
  }

  /** Groups the step still owes of its batch. */
  get debt(): number {
    return this.demand - this.exported.length;
  }

  /**
   * Runs the step: open, schedule its Groups, close, account.
   * @throws RolloutInterruptedError when its signal aborted; the tally's RolloutStalledError when it stalled
   */
  async run(): Promise<StepResult> {
    this.#scheduler.prepare(this);
    this.#start();
    this.#scheduler.open(this);
    await this.#scheduler.schedule(this);
    const result = await this.#end();
    this.#scheduler.stepReturned(this);
    return result;
  }

  /** Counts one finished Group into the step and hands it to `onGroup` (a throwing callback is logged). */
  record(result: GroupResult, info: GroupLaunchInfo): void {
    this.results.push(result);
    if (this.tally.record(result) === "exported") this.exported.push(result);
    try {
      this.options.onGroup?.(result, info);
    } catch (error) {
      this.#context.logger.warn(
        { rollout: this.rolloutId, group: result.groupId, err: String(error) },
        "onGroup callback threw",
      );
    }
  }

  /** How many recorded Groups `predicate` holds for. */
  count(predicate: (result: GroupResult) => boolean): number {
    return this.results.filter((result) => predicate(result)).length;
  }

  /** `mode` and, for an eval step given one, `dataset`: the fields every record of the step starts with. */
  #kindFields(): { mode: ExportMode; dataset?: string } {
    const { dataset } = this.#scheduler;
    return { mode: this.options.mode, ...(dataset !== undefined ? { dataset } : {}) };
  }

  #start(): void {
    const { groupSize } = this.options;
    const sessions = this.demand * groupSize;
    this.#context.logger.info(
      formatAgenticEvent("accounting_start", {
        rollout: this.rolloutId,
        ...this.#kindFields(),
        sessions,
        groups: this.demand,
        ...this.#scheduler.startFields(),
      }),
    );
    this.#context.reporter.startStep({ rolloutId: this.rolloutId, sessions, ...this.#kindFields() });
  }

  /**
   * The step's result after its close: rows in Group order (a trainer sees each Group's samples
   * contiguously), the `accounting_end` line, metrics and the debug dump.
   */
  async #end(): Promise<StepResult> {
    const { rolloutId } = this;
    const pool = this.#scheduler.closed(this);
    this.exported.sort((a, b) => groupIndexOf(a) - groupIndexOf(b));
    const rows = this.exported.flatMap((result) => (result.kind === "exported" ? result.export.rows : []));
    const wallSeconds = (performance.now() - this.started) / 1000;
    const debt = Math.max(0, this.debt);
    this.#logEnd({ rows, debt, pool, wallSeconds });
    this.#context.reporter.endStep();
    if (this.signal?.aborted) {
      await this.#scheduler.interrupted();
      throw new RolloutInterruptedError({
        message: `rollout ${rolloutId} interrupted; every agent process was terminated`,
      });
    }
    if (this.tally.stalled !== undefined) throw this.tally.stalled;
    const kind = this.#kindFields();
    const metrics = stepMetrics({ results: this.results, logPassrate: this.#context.logPassrate, ...kind });
    await this.#dump();
    return {
      rolloutId,
      ...kind,
      rows,
      groups: this.results,
      metrics,
      wallSeconds,
      ...(pool.queue !== undefined
        ? { debt, residentGroups: pool.residentGroups, queuedGroups: pool.queue.groups }
        : {}),
    };
  }

  #logEnd(end: { rows: TrainingRow[]; debt: number; pool: PoolAtClose; wallSeconds: number }): void {
    const { pool } = end;
    this.#context.logger.info(
      formatAgenticEvent("accounting_end", {
        rollout: this.rolloutId,
        ...this.#kindFields(),
        groups: this.exported.length,
        rows: end.rows.length,
        dropped_groups: this.count(isDroppedGroup),
        debt: end.debt,
        resident_groups: pool.residentGroups,
        ...(pool.queue?.logged ? { queued_groups: pool.queue.groups } : {}),
        interrupted_groups: pool.interruptedGroups,
        wall_s: Number(end.wallSeconds.toFixed(2)),
      }),
    );
  }

  /** `--save-debug-rollout-data`: the step's Groups dumped (`{rollout_id}` → `<id>` or `<id>_<dataset>`). */
  async #dump(): Promise<void> {
    const { saveDebugRolloutData, decode, logger } = this.#context;
    if (saveDebugRolloutData === undefined) return;
    const { dataset } = this.#scheduler;
    const results = this.results;
    const path = await writeDebugDump({
      pathTemplate: saveDebugRolloutData,
      rolloutStep: dataset !== undefined ? `${this.rolloutId}_${dataset}` : this.rolloutId,
      mode: this.options.mode,
      outcomes: results.flatMap((result) => (result.export ? [result.export] : [])),
      decode,
      sessions: new Map(
        results.flatMap((result) =>
          result.export
            ? [
                [
                  result.export.groupIndex,
                  result.sessions.map((s) => ({
                    sessionId: s.id,
                    forest: s.forest,
                    sideForests: s.sideForests,
                  })),
                ] as const,
              ]
            : [],
        ),
      ),
    });
    logger.info({ path }, "debug rollout data written");
  }
}

function groupIndexOf(result: GroupResult): number {
  return result.kind === "exported" ? result.export.groupIndex : -1;
}
