import { isInterruptedGroup, overSampledResult } from "../group/group-outcome";
import type { GroupResult } from "../group/run-group";
import { annotateRows } from "./annotate-rows";
import type { ControllerStepOptions, CrossStepOptions, RolloutControllerOptions } from "./controller-options";
import type { ControllerStep, PoolAtClose, StepScheduler } from "./controller-step";
import { type FinishedGroup, ResidentPool } from "./resident-pool";

/** {@link CrossStepOptions} with their defaults. */
type CrossStepFlags = Required<CrossStepOptions>;

function crossStepFlags(options: CrossStepOptions = {}): CrossStepFlags {
  return {
    partialRollout: options.partialRollout ?? false,
    fullyAsync: options.fullyAsync ?? false,
    prelaunch: options.prelaunch ?? false,
    closeCheckIntervalMs: options.closeCheckIntervalMs ?? 25,
  };
}

/** `--over-sampling-batch-size` beyond the batch: Groups a train step keeps in flight beyond its debt. */
function surplusOf(options: ControllerStepOptions): number {
  return Math.max(0, (options.overSampling ?? options.groupsPerStep) - options.groupsPerStep);
}

/** The running train step as the scheduler sees it, from its open to its close. */
interface TrainStepState {
  step: ControllerStep;
  flags: CrossStepFlags;
  /** Partial rollout or fully async: the step may close with Groups still resident. */
  crossStep: boolean;
  /** Over-sampling surplus kept in flight beyond the debt. */
  surplus: number;
  /** Prompt positions to run first (a step resumed from the run journal); consumed. */
  resumeCursors: number[];
}

/**
 * How train steps run their Groups (docs/contract.md#cross-step-scheduling): on a {@link ResidentPool} that
 * outlives a step. A step consumes finished Groups first, keeps its debt plus the over-sampling surplus in
 * flight within `concurrency`, and prelaunches the next step's Groups into free capacity. Its close is
 * synchronous without a cross-step flag (the Groups still working for it are interrupted, finished surplus
 * ends `over_sampled`) or leaves them resident (partial rollout pauses the gate; fully async keeps them
 * running, and with prelaunch refills freed slots between steps).
 */
export class TrainScheduler implements StepScheduler {
  readonly dataset = undefined;
  readonly pool: ResidentPool;
  readonly #options: RolloutControllerOptions;
  /** The rollout id of the train step running (or last run): turns are stamped with it. */
  #currentStep: number | undefined;
  #running: TrainStepState | undefined;
  /** The gate was paused by a partial-rollout step close (the next train step reopens it). */
  #pausedAtClose = false;
  /**
   * Fully async + prelaunch, between two train steps: the loop refilling freed slots with the next step's
   * Groups (see {@link stepReturned}); stopped when the next train step opens or the run ends.
   */
  #refill: { stopped: boolean } | undefined;

  constructor(options: RolloutControllerOptions) {
    this.#options = options;
    const launcher = { group: options.group, engineHealth: options.engineHealth };
    this.pool = new ResidentPool(launcher, () => this.#currentStep);
  }

  /** The train step running or last run (`undefined` before the first). */
  get currentStep(): number | undefined {
    return this.#currentStep;
  }

  /** Groups the running step still owes of its batch; 0 between steps. */
  get debt(): number {
    return this.#running?.step.debt ?? 0;
  }

  prepare(step: ControllerStep): void {
    this.#stopRefill();
    const { options } = step;
    const flags = crossStepFlags(this.#options.crossStep);
    const crossStep = flags.partialRollout || flags.fullyAsync;
    if (!crossStep && !flags.prelaunch) this.pool.nextIndex = options.firstGroupIndex ?? 0;
    else if (options.firstGroupIndex !== undefined)
      this.pool.nextIndex = Math.max(this.pool.nextIndex, options.firstGroupIndex);
    this.#currentStep = step.rolloutId;
    this.#options.onCurrentStep?.(step.rolloutId);
    this.#running = {
      step,
      flags,
      crossStep,
      surplus: surplusOf(options),
      resumeCursors: [...(options.resumeCursors ?? [])],
    };
  }

  startFields(): Record<string, number> {
    const { crossStep, flags } = this.#state();
    return crossStep || flags.prelaunch
      ? { queued_groups: this.pool.queuedGroups, resident_groups: this.pool.residentGroups }
      : {};
  }

  /** Carried and prelaunched Groups live in this step too; held ones get their lease now. */
  open(step: ControllerStep): void {
    this.pool.openStep(step.rolloutId);
    // Partial rollout: the previous close paused the gate; reopen it (held requests continue).
    this.#resumeGate();
  }

  async schedule(_step: ControllerStep): Promise<void> {
    const state = this.#state();
    await this.#fill(state);
    await this.#close(state);
  }

  closed(step: ControllerStep): PoolAtClose {
    const { crossStep, flags } = this.#state();
    this.#running = undefined;
    // After the close: with partial rollout every unprotected running Group is interrupted now.
    const gateOpen = (this.#options.group.gate?.state ?? "open") === "open";
    return {
      residentGroups: this.pool.residentGroups,
      interruptedGroups: crossStep ? this.pool.interruptedGroups(gateOpen) : step.count(isInterruptedGroup),
      queue: { groups: this.pool.queuedGroups, logged: crossStep || flags.prelaunch },
    };
  }

  async interrupted(): Promise<void> {
    await this.interruptAll();
  }

  /**
   * Fully async + prelaunch, after a step that a next step follows has returned: while the trainer holds
   * the run (until the next train step opens, or {@link interruptAll}), every slot a Group frees is
   * refilled at once with a Group for the next step, up to `concurrency` resident and `M` (over-sampling)
   * started for it and resident, exactly as the step itself prelaunches (not held: they run at once), until
   * the next step's whole batch (`groupsPerStep`) is queued finished: more would only wait, growing stale.
   * Without it the resident pool drained during every trainer step (docs/contract.md#cross-step-scheduling).
   */
  stepReturned(step: ControllerStep): void {
    const { rolloutId, prompts, groupSize, concurrency, groupsPerStep } = step.options;
    const flags = crossStepFlags(this.#options.crossStep);
    if (!flags.fullyAsync || !flags.prelaunch || step.options.nextStepFollows !== true) return;
    const refill = { stopped: false };
    this.#refill = refill;
    const cap = groupsPerStep + surplusOf(step.options);
    const { pool } = this;
    void (async () => {
      while (!refill.stopped && this.#options.group.signal?.aborted !== true) {
        while (
          pool.residentGroups < concurrency &&
          pool.count(rolloutId, "prelaunched") < cap &&
          pool.queuedGroups < groupsPerStep
        )
          pool.launch({ prompts, groupSize, forStep: rolloutId + 1, held: false, runningStep: rolloutId });
        await pool.wakeup.wait();
      }
    })();
  }

  /**
   * Interrupts every resident train Group (held, running, carried) and waits until each has ended; their
   * results (dropped `interrupted`) are returned, not reported. Call it when the run ends.
   */
  async interruptAll(): Promise<GroupResult[]> {
    this.#stopRefill();
    await this.pool.interrupt(() => true, "run ended");
    const results = this.pool.takeFinished().map((item) => item.result);
    this.#resumeGate();
    return results;
  }

  #state(): TrainStepState {
    if (this.#running === undefined) throw new Error("no train step is running");
    return this.#running;
  }

  /** Stops the between-steps refill loop, if one runs (it launches nothing more). */
  #stopRefill(): void {
    if (this.#refill === undefined) return;
    this.#refill.stopped = true;
    this.#refill = undefined;
    this.pool.wakeup.notify();
  }

  /** Reopens the gate a partial-rollout close paused. */
  #resumeGate(): void {
    const gate = this.#options.group.gate;
    if (this.#pausedAtClose && gate !== undefined && gate.state !== "open") gate.resume();
    this.#pausedAtClose = false;
  }

  /** Records one finished Group into the step: an exported one's rows get their cross-step fields. */
  #record(step: ControllerStep, { resident, result }: FinishedGroup): void {
    step.record(annotateRows(result, resident, step.rolloutId), {
      cursor: resident.cursor,
      groupIndex: resident.index,
    });
  }

  /**
   * Runs the step until it may close: consumes finished Groups (oldest first), keeps debt + over-sampling
   * surplus in flight within resident capacity (a prelaunched Group is taken first when the step needs one,
   * so held Groups never starve it), and prelaunches the next step's Groups into free capacity. Stalled, it
   * launches nothing more but lets the Groups already working finish (their rows are kept).
   */
  async #fill(state: TrainStepState): Promise<void> {
    const { step, flags } = state;
    const { pool } = this;
    const { rolloutId } = step;
    for (;;) {
      while (pool.queuedGroups > 0 && step.debt > 0) this.#record(step, pool.nextFinished()!);
      if (step.signal?.aborted || this.#canClose(step)) break;
      if (step.tally.stalled !== undefined) {
        if (pool.count(rolloutId, "working") === 0 && pool.queuedGroups === 0) break;
        await pool.wakeup.wait();
        continue;
      }
      this.#keepDebtInFlight(state);
      if (flags.prelaunch && step.options.nextStepFollows === true) this.#prelaunch(state);
      if (pool.size === 0 && pool.queuedGroups === 0) break;
      await pool.wakeup.wait(flags.fullyAsync ? flags.closeCheckIntervalMs : undefined);
    }
  }

  /**
   * True once the step may close: its batch is complete (`groupsPerStep` exported Groups). Fully async
   * too: the trainer reads the step itself, so the step is the batch; interrupted Groups never close a step
   * early (a deliberate deviation, docs/contract.md#deviations).
   */
  #canClose(step: ControllerStep): boolean {
    return step.debt <= 0;
  }

  /** Keeps debt + surplus Groups working for the step: a Group started for a later step first, then new ones. */
  #keepDebtInFlight({ step, surplus, resumeCursors }: TrainStepState): void {
    const { pool } = this;
    const { rolloutId, prompts, groupSize, concurrency } = step.options;
    while (pool.count(rolloutId, "working") < step.debt + surplus) {
      if (pool.takeOneInto(rolloutId)) continue;
      if (pool.residentGroups >= concurrency) break;
      pool.launch({
        prompts,
        groupSize,
        forStep: rolloutId,
        held: false,
        runningStep: rolloutId,
        resumeCursors,
      });
    }
  }

  /** Starts the next step's Groups into free capacity, up to its batch plus the surplus. */
  #prelaunch({ step, flags, surplus }: TrainStepState): void {
    const { pool } = this;
    const { rolloutId, prompts, groupSize, concurrency, groupsPerStep } = step.options;
    while (
      pool.residentGroups < concurrency &&
      pool.count(rolloutId, "prelaunched") < groupsPerStep + surplus
    ) {
      // Fully async: not held. A step's batch is whichever Groups finish first, so a held Group would
      // only idle its slot (and stay idle between steps); it runs at once (docs/contract.md#cross-step-scheduling).
      pool.launch({
        prompts,
        groupSize,
        forStep: rolloutId + 1,
        held: !flags.fullyAsync,
        runningStep: rolloutId,
      });
    }
  }

  /**
   * Closes the step. Synchronous close (no cross-step flag, interrupted, stalled): every Group working for
   * it is interrupted and awaited, finished surplus ends `over_sampled`. Cross-step close: finished surplus
   * is queued for the next step, unfinished Groups stay resident, partial rollout pauses the gate.
   */
  async #close({ step, flags, crossStep }: TrainStepState): Promise<void> {
    const { pool } = this;
    const gate = this.#options.group.gate;
    const surplusDone = pool.takeFinished();
    const aborted = step.signal?.aborted === true;
    if (aborted || step.tally.stalled !== undefined || !crossStep) {
      await pool.interrupt((resident) => resident.forStep <= step.rolloutId || aborted, "step closed");
      for (const { resident, result } of [...surplusDone, ...pool.takeFinished()]) {
        this.#record(step, {
          resident,
          result: result.kind === "exported" ? overSampledResult(result) : result,
        });
      }
    } else {
      pool.requeue(surplusDone);
      if (flags.partialRollout && gate !== undefined && gate.state === "open") {
        this.#pausedAtClose = true;
        await gate.pause();
      }
    }
  }
}
