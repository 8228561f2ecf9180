import type { GatewaySession } from "@relax/agent-api";
import type { ExportMode, GroupExportOutcome, TrainingRow } from "@relax/export";
import { computeRolloutMetrics, writeDebugDump } from "@relax/export";
import type { Logger } from "pino";
import type { PromptItem } from "../dataset/prompt-dataset";
import type { EngineHealth } from "../engine/engine-health";
import { RolloutInterruptedError } from "../errors/rollout-interrupted-error";
import {
  type GroupContext,
  type GroupControl,
  type GroupLifeState,
  type GroupResult,
  runGroup,
} from "../group/run-group";
import { formatAgenticEvent } from "../report/create-logger";
import type { RunReporter } from "../report/run-reporter";
import { GroupTally, isDroppedGroup } from "./group-tally";

/** Options of {@link RolloutController}. */
export interface RolloutControllerOptions {
  group: GroupContext;
  /**
   * Told each time the train step running changes (a sharded gateway forwards it to its shards, which
   * stamp each turn with it; see {@link RolloutController.currentStep}).
   */
  onCurrentStep?: (step: number | undefined) => void;
  logger: Logger;
  reporter: RunReporter;
  /** Decoder for debug dumps (special tokens kept). */
  decode: (ids: number[]) => string;
  logPassrate: boolean;
  saveDebugRolloutData?: string;
  /**
   * Stop a step after this many dropped Groups in a row (every replacement failing means the agent or the
   * configuration is broken, not the data). @default 3 × the step's Group count, at least 8
   */
  maxConsecutiveDrops?: number;
  /**
   * Cross-step scheduling of train Groups (see docs/contract.md#cross-step-scheduling). All off: every
   * step leases its Groups at once and interrupts the ones still running when it closes.
   */
  crossStep?: CrossStepOptions;
  /**
   * Engine outage handling (see {@link EngineHealth}): Groups wait for the engine's health before they
   * start, and drops the backend caused are counted apart (`backend_*`), outside `maxConsecutiveDrops`.
   */
  engineHealth?: EngineHealth;
}

/** What {@link ControllerStepOptions.onGroup} learns about a Group besides its result. */
export interface GroupLaunchInfo {
  /** The prompt's position: the train cursor value the Group took (eval: its position in the eval set). */
  cursor: number;
  /** The Group's index within the step (`group_index` of its rows). */
  groupIndex: number;
}

/** The cross-step flags of {@link RolloutControllerOptions}. */
export interface CrossStepOptions {
  /**
   * `--partial-rollout`: at step close the generation gate is paused (in-flight engine calls aborted,
   * partial output kept, HTTP requests held, budgets paused) and unfinished Groups stay resident; the next
   * train step reopens the gate and they continue under the new weights.
   */
  partialRollout?: boolean;
  /**
   * `--fully-async`: unfinished Groups stay resident across steps and keep running between them (unless
   * `partialRollout` pauses them). Every step still closes on exactly its batch (`groupsPerStep` exported
   * Groups: what the trainer consumes per optimizer step, as slime's fully-async rollout gives it; see
   * docs/contract.md#deviations); Groups that finish beyond it are queued for the next step, never dropped,
   * and no debt is carried.
   */
  fullyAsync?: boolean;
  /**
   * `--agentic-prelaunch`: while resident capacity is free and a next step follows, Groups for the next
   * step are started early and held after their first-request barrier until that step leases them. With
   * `fullyAsync` they are not held: they run at once and a step takes whichever Groups finish first.
   */
  prelaunch?: boolean;
  /**
   * How often a fully-async step re-checks its close condition while Groups run (their engine activity
   * changes without a Group finishing), in ms. @default 25
   */
  closeCheckIntervalMs?: number;
}

/** Options of {@link RolloutController.runStep}. */
export interface ControllerStepOptions {
  rolloutId: number;
  /** The dataset: train steps continue from {@link RolloutController.cursor}; eval steps start at the top. */
  prompts: readonly PromptItem[];
  /** Groups that must export for the step to close. */
  groupsPerStep: number;
  /** Sessions per Group. */
  groupSize: number;
  /** Resident Groups at most (Prepare + Runtime). */
  concurrency: number;
  mode: ExportMode;
  /**
   * The eval dataset this step runs (eval only): its metric keys are prefixed `eval/<dataset>/` instead
   * of `eval/`, its debug dump replaces `{rollout_id}` with `eval_<rolloutId>_<dataset>`, and its
   * `accounting_*` log lines carry `dataset=`.
   */
  dataset?: string;
  /**
   * Called with each Group's result as soon as it finishes (exported or dropped), before the step closes.
   * A throwing callback is logged and does not stop the step.
   */
  onGroup?: (result: GroupResult, info: GroupLaunchInfo) => void;
  /** Aborting it interrupts this step only (combined with the Group context's run signal). */
  signal?: AbortSignal;
  /**
   * `--over-sampling-batch-size` (train): Groups kept in flight are `debt + overSampling − groupsPerStep`,
   * so a dropped or filtered Group is already replaced by a running one. @default groupsPerStep
   */
  overSampling?: number;
  /** Train: another train step follows this one (prelaunch only starts Groups for a step that will run). */
  nextStepFollows?: boolean;
  /**
   * Train only: prompt positions (cursor values) to run first, before continuing at {@link
   * RolloutController.cursor}; a step resumed from the run journal re-runs the prompts its killed run had
   * in flight. @default none
   */
  resumeCursors?: readonly number[];
  /** Group index of the step's first Group (a resumed step continues after its journaled Groups). @default 0 */
  firstGroupIndex?: number;
}

/** What one rollout step produced. */
export interface StepResult {
  rolloutId: number;
  mode: ExportMode;
  /** The eval dataset's name, for an eval step given one. */
  dataset?: string;
  rows: TrainingRow[];
  groups: GroupResult[];
  metrics: Record<string, number>;
  wallSeconds: number;
  /** Train: Groups still owed when the step closed (0 for a step that returns: every step fills its batch). */
  debt?: number;
  /** Train: Groups resident (agents alive) when the step closed, prelaunched ones included. */
  residentGroups?: number;
  /**
   * Train: finished Groups kept for the next step when the step closed (over-sampling or cross-step
   * surplus: they fill the next step's batch first).
   */
  queuedGroups?: number;
}

/** The running train step's bookkeeping, from its open to its end (see RolloutController#runTrainStep). */
interface TrainStep {
  options: ControllerStepOptions;
  flags: Required<Omit<CrossStepOptions, "closeCheckIntervalMs">> & { closeCheckIntervalMs: number };
  /** Partial rollout or fully async: the step may close with Groups still resident. */
  crossStep: boolean;
  /** Groups this step must export: its batch. */
  demand: number;
  /** Over-sampling surplus kept in flight beyond the debt. */
  surplus: number;
  /** `performance.now()` at the open, for `wall_s`. */
  started: number;
  resumeCursors: number[];
  signal?: AbortSignal;
  results: GroupResult[];
  exported: GroupResult[];
  tally: GroupTally;
}

/** A Group the controller launched and whose agents have not all exited (or whose result is pending). */
interface Resident {
  /** Index of the Group (`group_index` of its rows, part of its Group id). */
  index: number;
  /** The prompt's position in the train dataset (the cursor value the Group took). */
  cursor: number;
  prompt: PromptItem;
  mode: ExportMode;
  state: GroupLifeState;
  /** The train step the Group was started for (the next step for a prelaunched Group). */
  forStep: number;
  /** Set once the Group is leased: the step that leased it. */
  leasedStep?: number;
  /** Every train step during which the Group was resident. */
  steps: number[];
  sessions: readonly GatewaySession[];
  /** Grants the lease of a held (prelaunched) Group. */
  grantLease?: () => void;
  interrupt: AbortController;
  /** Settles once the Group's result is queued. */
  settled: Promise<void>;
}

/** Tells a waiting step that something changed (a Group finished or changed state). */
class Wakeup {
  #waiters: Array<() => void> = [];
  notify(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
  /** Resolves at the next notify, or after `timeoutMs` when given. */
  wait(timeoutMs?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const wake = () => {
        if (timer !== undefined) clearTimeout(timer);
        resolve();
      };
      this.#waiters.push(wake);
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.#waiters = this.#waiters.filter((waiter) => waiter !== wake);
          resolve();
        }, timeoutMs);
      }
    });
  }
}

/** Reasons a Group ends without training that are not drops (not counted, not replaced as failures). */

/**
 * The rollout controller (see docs/contract.md#runtime-scheduling and
 * docs/contract.md#cross-step-scheduling): for each step, runs Groups of `n` sessions over the dataset
 * until `groupsPerStep` Groups have exported, with at most `concurrency` resident Groups (Prepare +
 * Runtime share the capacity; a Group's slot is freed when its agents exit, before export and reward). A
 * dropped Group is logged with its reason, counted, and replaced by the next prompt. Emits the
 * `accounting_start` / `accounting_end` log lines (`accounting_end` also for a step that stalls or is
 * interrupted, with its real debt).
 *
 * Train Groups live in a resident pool that outlives a step: with {@link CrossStepOptions} a Group is
 * `preparing` → (`held`, prelaunched) → `running` → finished, and may span several steps. Per-Group
 * state machine: preparing → held (first requests committed, waiting for the lease) → running →
 * interrupted (dropped at a synchronous step close) or finished (exported / dropped).
 */
export class RolloutController {
  readonly #options: RolloutControllerOptions;
  #cursor = 0;
  #debt = 0;
  /** Train Groups resident across steps, by index. */
  readonly #pool = new Map<number, Resident>();
  /** Finished train Groups not yet consumed by a step (they finished between steps, or are surplus). */
  readonly #finished: Array<{ resident: Resident; result: GroupResult }> = [];
  readonly #wakeup = new Wakeup();
  #evalResident = 0;
  /** Next train Group index: global across steps when Groups may span steps, else per step. */
  #nextIndex = 0;
  /** The rollout id of the train step running (or last run): turns are stamped with it. */
  #currentStep: number | undefined;
  /** The gate was paused by a partial-rollout step close (the next train step reopens it). */
  #pausedAtClose = false;
  /**
   * Fully async + prelaunch, between two train steps: the loop refilling freed slots with the next step's
   * Groups (see #refillBetweenSteps); stopped when the next train step opens or the run ends.
   */
  #refill: { stopped: boolean } | undefined;

  constructor(options: RolloutControllerOptions) {
    this.#options = options;
  }

  /**
   * Position of the next train prompt: the number of train prompts taken so far (the dataset is cycled,
   * so prompt `cursor % prompts.length` comes next). Set it to continue a run at a given prompt.
   * Prompts of prelaunched and carried Groups count as taken.
   */
  get cursor(): number {
    return this.#cursor;
  }

  set cursor(value: number) {
    if (!Number.isInteger(value) || value < 0)
      throw new RangeError(`cursor must be an integer >= 0, got ${value}`);
    this.#cursor = value;
  }

  /** Groups the running step still owes of its batch; 0 between steps. */
  get debt(): number {
    return this.#debt;
  }

  /**
   * Finished train Groups waiting for the next step (they finished after the last step's batch was full,
   * or between steps); the next step consumes them first, oldest first.
   */
  get queuedGroups(): number {
    return this.#finished.length;
  }

  /**
   * `--agentic-prelaunch`: the Groups started for a later step and not leased yet, with their agent
   * sessions (each session's first request committed and held at the barrier, or still arriving).
   */
  get prelaunched(): { groups: number; sessions: number } {
    let groups = 0;
    let sessions = 0;
    for (const resident of this.#pool.values()) {
      if (resident.grantLease === undefined || resident.state === "exited") continue;
      groups++;
      sessions += resident.sessions.length;
    }
    return { groups, sessions };
  }

  /** Groups resident now (agents alive: Prepare, held and Runtime), train and eval. */
  get residentGroups(): number {
    return this.#trainResident() + this.#evalResident;
  }

  /** The train step running or last run (`undefined` before the first); the turn runner stamps turns with it. */
  get currentStep(): number | undefined {
    return this.#currentStep;
  }

  #trainResident(): number {
    let count = 0;
    for (const resident of this.#pool.values()) if (resident.state !== "exited") count++;
    return count;
  }

  #crossStep(): Required<Omit<CrossStepOptions, "closeCheckIntervalMs">> & { closeCheckIntervalMs: number } {
    const options = this.#options.crossStep ?? {};
    return {
      partialRollout: options.partialRollout ?? false,
      fullyAsync: options.fullyAsync ?? false,
      prelaunch: options.prelaunch ?? false,
      closeCheckIntervalMs: options.closeCheckIntervalMs ?? 25,
    };
  }

  /**
   * Runs one step over `prompts` (train steps cycle from {@link cursor}; eval steps start at prompt 0).
   * @throws RolloutStalledError after `maxConsecutiveDrops` drops in a row.
   * @throws RolloutInterruptedError when the Group context's signal aborted.
   */
  async runStep(options: ControllerStepOptions): Promise<StepResult> {
    if (options.prompts.length === 0) throw new RangeError(`rollout ${options.rolloutId}: no prompts`);
    return options.mode === "train" ? this.#runTrainStep(options) : this.#runEvalStep(options);
  }

  /**
   * Interrupts every resident train Group (held, running, carried) and waits until each has ended; their
   * results (dropped `interrupted`) are returned, not reported. Call it when the run ends.
   */
  async interruptAll(): Promise<GroupResult[]> {
    this.#stopRefill();
    const residents = [...this.#pool.values()];
    for (const resident of residents) resident.interrupt.abort(new DOMException("run ended", "AbortError"));
    await Promise.all(residents.map((resident) => resident.settled));
    const results = this.#finished.splice(0).map((item) => item.result);
    if (this.#pausedAtClose && this.#options.group.gate?.state !== "open") this.#options.group.gate?.resume();
    this.#pausedAtClose = false;
    return results;
  }

  /** Starts one train Group into the pool; `held` Groups wait for {@link Resident.grantLease}. */
  #launchTrain(options: {
    prompts: readonly PromptItem[];
    groupSize: number;
    forStep: number;
    held: boolean;
    runningStep: number;
    /** Prompt positions to take before the cursor (a step resumed from the run journal); consumed. */
    resumeCursors?: number[];
  }): Resident {
    const index = this.#nextIndex++;
    const cursor = options.resumeCursors?.shift() ?? this.#cursor++;
    const prompt = options.prompts[cursor % options.prompts.length]!;
    const interrupt = new AbortController();
    let grantLease: (() => void) | undefined;
    const lease = options.held
      ? new Promise<void>((resolve) => {
          grantLease = resolve;
        })
      : undefined;
    const resident: Resident = {
      index,
      cursor,
      prompt,
      mode: "train",
      state: "preparing",
      forStep: options.forStep,
      steps: [options.runningStep],
      sessions: [],
      interrupt,
      settled: Promise.resolve(),
      ...(grantLease !== undefined ? { grantLease } : {}),
    };
    if (!options.held) resident.leasedStep = options.runningStep;
    const control: GroupControl = {
      // The run's signal reaches the Group through its context; a step that aborts interrupts them all.
      signal: interrupt.signal,
      ...(lease !== undefined ? { lease } : {}),
      onState: (state, sessions) => {
        resident.state = state;
        resident.sessions = sessions;
        if (state === "running" && resident.leasedStep === undefined) resident.leasedStep = this.#currentStep;
        this.#wakeup.notify();
      },
    };
    const group = this.#options.group;
    const { engineHealth } = this.#options;
    const run = () =>
      runGroup(group, {
        groupIndex: index,
        prompt,
        size: options.groupSize,
        mode: "train",
        rolloutId: options.forStep,
        control,
      });
    const waitSignal =
      group.signal !== undefined ? AbortSignal.any([group.signal, interrupt.signal]) : interrupt.signal;
    // An engine outage: the Group waits for the engine's health before its agents start.
    resident.settled = (
      engineHealth
        ? engineHealth.runWhenHealthy(run, {
            signal: waitSignal,
            prompt,
            slot: index,
            rolloutId: options.forStep,
          })
        : run()
    )
      .then((result) => engineHealth?.classify(result) ?? result)
      .catch((error: unknown): GroupResult => internalError(`g${options.forStep}-${index}`, prompt, error))
      .then((result) => {
        resident.state = "exited";
        this.#pool.delete(index);
        this.#finished.push({ resident, result });
        this.#wakeup.notify();
      });
    this.#pool.set(index, resident);
    return resident;
  }

  /**
   * Interrupted train Groups: leased, unfinished, and every session interrupted — not protected, and
   * either with no live request (its agent is in a tool call or between turns) or, while the gate is
   * closed, with its requests held and none generating.
   */
  #interruptedGroups(): number {
    const gateOpen = (this.#options.group.gate?.state ?? "open") === "open";
    let count = 0;
    for (const resident of this.#pool.values()) {
      if (resident.state !== "running" || resident.sessions.length === 0) continue;
      const interrupted = resident.sessions.every(
        (session) =>
          !session.protected && (session.inflight === 0 || (!gateOpen && session.generating === 0)),
      );
      if (interrupted) count++;
    }
    return count;
  }

  async #runTrainStep(options: ControllerStepOptions): Promise<StepResult> {
    this.#stopRefill();
    const step = this.#openTrainStep(options);
    await this.#fillTrainStep(step);
    await this.#closeTrainStep(step);
    const result = await this.#endTrainStep(step);
    this.#refillBetweenSteps(step);
    return result;
  }

  /**
   * Fully async + prelaunch, after a step that a next step follows has returned: while the trainer holds
   * the run (until the next train step opens, or {@link interruptAll}), every slot a Group frees is
   * refilled at once with a Group for the next step, up to `concurrency` resident and `M` (over-sampling)
   * started for it and resident, exactly as the step itself prelaunches (not held: they run at once), until
   * the next step's whole batch (`groupsPerStep`) is queued finished: more would only wait, growing stale.
   * Without it the resident pool drained during every trainer step (docs/contract.md#cross-step-scheduling).
   */
  #refillBetweenSteps(step: TrainStep): void {
    const { rolloutId, prompts, groupSize, concurrency, groupsPerStep } = step.options;
    if (!step.flags.fullyAsync || !step.flags.prelaunch || step.options.nextStepFollows !== true) return;
    const refill = { stopped: false };
    this.#refill = refill;
    const cap = groupsPerStep + step.surplus;
    void (async () => {
      while (!refill.stopped && this.#options.group.signal?.aborted !== true) {
        while (
          this.#trainResident() < concurrency &&
          this.#countResidents(rolloutId, "prelaunched") < cap &&
          this.#finished.length < groupsPerStep
        )
          this.#launchTrain({
            prompts,
            groupSize,
            forStep: rolloutId + 1,
            held: false,
            runningStep: rolloutId,
          });
        await this.#wakeup.wait();
      }
    })();
  }

  /** Stops the between-steps refill loop, if one runs (it launches nothing more). */
  #stopRefill(): void {
    if (this.#refill === undefined) return;
    this.#refill.stopped = true;
    this.#refill = undefined;
    this.#wakeup.notify();
  }

  /**
   * Opens a train step: Group indices, the step's demand (its batch) and surplus, the `accounting_start`
   * line, leases for carried and prelaunched Groups, and (partial rollout) the gate the previous close
   * paused reopened.
   */
  #openTrainStep(options: ControllerStepOptions): TrainStep {
    const { rolloutId, groupsPerStep, groupSize } = options;
    const { logger, reporter, engineHealth } = this.#options;
    const flags = this.#crossStep();
    const crossStep = flags.partialRollout || flags.fullyAsync;
    const maxConsecutiveDrops = this.#options.maxConsecutiveDrops ?? Math.max(8, 3 * groupsPerStep);
    if (!crossStep && !flags.prelaunch) this.#nextIndex = options.firstGroupIndex ?? 0;
    else if (options.firstGroupIndex !== undefined)
      this.#nextIndex = Math.max(this.#nextIndex, options.firstGroupIndex);
    this.#currentStep = rolloutId;
    this.#options.onCurrentStep?.(rolloutId);
    const demand = groupsPerStep;
    const surplus = Math.max(0, (options.overSampling ?? groupsPerStep) - groupsPerStep);
    logger.info(
      formatAgenticEvent("accounting_start", {
        rollout: rolloutId,
        mode: "train",
        sessions: demand * groupSize,
        groups: demand,
        ...(crossStep || flags.prelaunch
          ? { queued_groups: this.#finished.length, resident_groups: this.#trainResident() }
          : {}),
      }),
    );
    reporter.startStep({ rolloutId, mode: "train", sessions: demand * groupSize });
    const signals = [this.#options.group.signal, options.signal].filter((item) => item !== undefined);
    // Carried and prelaunched Groups live in this step too; held ones get their lease now.
    for (const resident of this.#pool.values()) {
      if (!resident.steps.includes(rolloutId)) resident.steps.push(rolloutId);
      if (resident.grantLease !== undefined && resident.forStep <= rolloutId) {
        resident.grantLease();
        delete resident.grantLease;
        resident.leasedStep ??= rolloutId;
      }
    }
    // Partial rollout: the previous close paused the gate; reopen it (held requests continue).
    const gate = this.#options.group.gate;
    if (this.#pausedAtClose && gate !== undefined && gate.state !== "open") gate.resume();
    this.#pausedAtClose = false;
    this.#debt = demand;
    return {
      options,
      flags,
      crossStep,
      demand,
      surplus,
      started: performance.now(),
      resumeCursors: [...(options.resumeCursors ?? [])],
      ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}),
      results: [],
      exported: [],
      tally: new GroupTally({ rolloutId, maxConsecutiveDrops, logger, reporter, engineHealth }),
    };
  }

  /** Counts one finished Group into the step and hands it to `onGroup`. */
  #reportTrainGroup(step: TrainStep, resident: Resident, result: GroupResult): void {
    const { rolloutId } = step.options;
    step.results.push(result);
    if (step.tally.record(result) === "exported") {
      step.exported.push(
        annotateRows(result as Extract<GroupResult, { kind: "exported" }>, resident, rolloutId),
      );
      this.#debt = step.demand - step.exported.length;
    }
    try {
      step.options.onGroup?.(result, { cursor: resident.cursor, groupIndex: resident.index });
    } catch (error) {
      this.#options.logger.warn(
        { rollout: rolloutId, group: result.groupId, err: String(error) },
        "onGroup callback threw",
      );
    }
  }

  /** Leased (or leasable now) Groups working for the step (carried ones included), or prelaunched ones. */
  #countResidents(rolloutId: number, which: "working" | "prelaunched"): number {
    let count = 0;
    for (const resident of this.#pool.values())
      if (which === "working" ? resident.forStep <= rolloutId : resident.forStep > rolloutId) count++;
    return count;
  }

  /**
   * True once the step may close: its batch is complete (`groupsPerStep` exported Groups). Fully async
   * too: the trainer reads the step itself, so the step is the batch; interrupted Groups never close a step
   * early (a deliberate deviation, docs/contract.md#deviations).
   */
  #canCloseTrainStep(_step: TrainStep): boolean {
    return this.#debt <= 0;
  }

  /**
   * Runs the step until it may close: consumes finished Groups (oldest first), keeps debt + over-sampling
   * surplus in flight within resident capacity (a prelaunched Group is leased first when the step needs one,
   * so held Groups never starve it), and prelaunches the next step's Groups into free capacity. Stalled, it
   * launches nothing more but lets the Groups already working finish (their rows are kept).
   */
  async #fillTrainStep(step: TrainStep): Promise<void> {
    const { rolloutId, prompts, groupSize, concurrency, groupsPerStep } = step.options;
    for (;;) {
      while (this.#finished.length > 0 && this.#debt > 0) {
        const { resident, result } = this.#finished.shift()!;
        this.#reportTrainGroup(step, resident, result);
      }
      if (step.signal?.aborted || this.#canCloseTrainStep(step)) break;
      if (step.tally.stalled !== undefined) {
        if (this.#countResidents(rolloutId, "working") === 0 && this.#finished.length === 0) break;
        await this.#wakeup.wait();
        continue;
      }
      while (this.#countResidents(rolloutId, "working") < this.#debt + step.surplus) {
        const held = [...this.#pool.values()].find((resident) => resident.forStep > rolloutId);
        if (held !== undefined) {
          held.forStep = rolloutId;
          held.grantLease?.();
          delete held.grantLease;
          held.leasedStep = rolloutId;
          continue;
        }
        if (this.#trainResident() >= concurrency) break;
        this.#launchTrain({
          prompts,
          groupSize,
          forStep: rolloutId,
          held: false,
          runningStep: rolloutId,
          resumeCursors: step.resumeCursors,
        });
      }
      if (step.flags.prelaunch && step.options.nextStepFollows === true) {
        while (
          this.#trainResident() < concurrency &&
          this.#countResidents(rolloutId, "prelaunched") < groupsPerStep + step.surplus
        ) {
          // Fully async: not held. A step's batch is whichever Groups finish first, so a held Group would
          // only idle its slot (and stay idle between steps); it runs at once (docs/contract.md#cross-step-scheduling).
          this.#launchTrain({
            prompts,
            groupSize,
            forStep: rolloutId + 1,
            held: !step.flags.fullyAsync,
            runningStep: rolloutId,
          });
        }
      }
      if (this.#pool.size === 0 && this.#finished.length === 0) break;
      await this.#wakeup.wait(step.flags.fullyAsync ? step.flags.closeCheckIntervalMs : undefined);
    }
  }

  /**
   * Closes the step. Synchronous close (no cross-step flag, interrupted, stalled): every Group working for
   * it is interrupted and awaited, finished surplus ends `over_sampled`. Cross-step close: finished surplus
   * is queued for the next step, unfinished Groups stay resident, partial rollout pauses the gate.
   */
  async #closeTrainStep(step: TrainStep): Promise<void> {
    const { rolloutId } = step.options;
    const gate = this.#options.group.gate;
    const surplusDone = this.#finished.splice(0);
    if (step.signal?.aborted || step.tally.stalled !== undefined || !step.crossStep) {
      const stepGroups = [...this.#pool.values()].filter(
        (resident) => resident.forStep <= rolloutId || step.signal?.aborted === true,
      );
      for (const resident of stepGroups)
        resident.interrupt.abort(new DOMException("step closed", "AbortError"));
      await Promise.all(stepGroups.map((resident) => resident.settled));
      for (const { resident, result } of [...surplusDone, ...this.#finished.splice(0)]) {
        this.#reportTrainGroup(step, resident, result.kind === "exported" ? overSampled(result) : result);
      }
    } else {
      this.#finished.unshift(...surplusDone);
      if (step.flags.partialRollout && gate !== undefined && gate.state === "open") {
        this.#pausedAtClose = true;
        await gate.pause();
      }
    }
  }

  /**
   * The step's result after its close: rows in Group order (a trainer sees each Group's samples
   * contiguously), the `accounting_end` line, metrics and the debug dump.
   * @throws RolloutInterruptedError when the run was interrupted; the tally's RolloutStalledError when stalled
   */
  async #endTrainStep(step: TrainStep): Promise<StepResult> {
    const { rolloutId } = step.options;
    const { results, exported, crossStep } = step;
    // After the close: with partial rollout every unprotected running Group is interrupted now.
    const interruptedNow = this.#interruptedGroups();
    exported.sort((a, b) => groupIndexOf(a) - groupIndexOf(b));
    const rows = exported.flatMap((result) => (result.kind === "exported" ? result.export.rows : []));
    const wallSeconds = (performance.now() - step.started) / 1000;
    const debt = Math.max(0, this.#debt);
    const residentGroups = this.#trainResident();
    const queuedGroups = this.#finished.length;
    this.#options.logger.info(
      formatAgenticEvent("accounting_end", {
        rollout: rolloutId,
        mode: "train",
        groups: exported.length,
        rows: rows.length,
        dropped_groups: results.filter((result) => isDroppedGroup(result)).length,
        debt,
        resident_groups: residentGroups,
        ...(crossStep || step.flags.prelaunch ? { queued_groups: queuedGroups } : {}),
        interrupted_groups: crossStep
          ? interruptedNow
          : results.filter((result) => result.kind === "dropped" && result.reason === "interrupted").length,
        wall_s: Number(wallSeconds.toFixed(2)),
      }),
    );
    this.#debt = 0;
    this.#options.reporter.endStep();
    if (step.signal?.aborted) {
      await this.interruptAll();
      throw new RolloutInterruptedError({
        message: `rollout ${rolloutId} interrupted; every agent process was terminated`,
      });
    }
    if (step.tally.stalled !== undefined) throw step.tally.stalled;
    const metrics = stepMetrics({ results, mode: "train", logPassrate: this.#options.logPassrate });
    await this.#dump(rolloutId, "train", undefined, results);
    return {
      rolloutId,
      mode: "train",
      rows,
      groups: results,
      metrics,
      wallSeconds,
      debt,
      residentGroups,
      queuedGroups,
    };
  }

  async #dump(rolloutId: number, mode: ExportMode, dataset: string | undefined, results: GroupResult[]) {
    if (this.#options.saveDebugRolloutData === undefined) return;
    const path = await writeDebugDump({
      pathTemplate: this.#options.saveDebugRolloutData,
      rolloutStep: dataset !== undefined ? `${rolloutId}_${dataset}` : rolloutId,
      mode,
      outcomes: results.flatMap((result) => (result.export ? [result.export] : [])),
      decode: this.#options.decode,
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
    this.#options.logger.info({ path }, "debug rollout data written");
  }

  /** An eval step: its own Groups (never resident across steps), leased at once, as before. */
  async #runEvalStep(options: ControllerStepOptions): Promise<StepResult> {
    const { rolloutId, prompts, groupsPerStep, groupSize, concurrency, mode } = options;
    const dataset = options.dataset;
    const datasetField = dataset !== undefined ? { dataset } : {};
    const { logger, reporter } = this.#options;
    const started = performance.now();
    const maxConsecutiveDrops = this.#options.maxConsecutiveDrops ?? Math.max(8, 3 * groupsPerStep);
    logger.info(
      formatAgenticEvent("accounting_start", {
        rollout: rolloutId,
        mode,
        ...datasetField,
        sessions: groupsPerStep * groupSize,
        groups: groupsPerStep,
      }),
    );
    reporter.startStep({ rolloutId, mode, sessions: groupsPerStep * groupSize, ...datasetField });

    const results: GroupResult[] = [];
    const exported: GroupResult[] = [];
    const active = new Map<number, Promise<{ slot: number; result: GroupResult; cursor: number }>>();
    let nextGroupIndex = options.firstGroupIndex ?? 0;
    const { engineHealth } = this.#options;
    const tally = new GroupTally({ rolloutId, maxConsecutiveDrops, logger, reporter, engineHealth });
    let evalCursor = 0;
    const signals = [this.#options.group.signal, options.signal].filter((item) => item !== undefined);
    const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
    const group = signal !== undefined ? { ...this.#options.group, signal } : this.#options.group;

    const launch = () => {
      const slot = nextGroupIndex++;
      const cursor = evalCursor++;
      const prompt = prompts[cursor % prompts.length]!;
      const run = () => runGroup(group, { groupIndex: slot, prompt, size: groupSize, mode, rolloutId });
      const promise = (
        engineHealth ? engineHealth.runWhenHealthy(run, { signal, prompt, slot, rolloutId }) : run()
      ).then(
        (result) => ({ slot, cursor, result: engineHealth?.classify(result) ?? result }),
        (error: unknown) => ({ slot, cursor, result: internalError(`g${rolloutId}-${slot}`, prompt, error) }),
      );
      active.set(slot, promise);
      this.#evalResident = active.size;
    };

    while (exported.length < groupsPerStep) {
      while (
        tally.stalled === undefined &&
        !signal?.aborted &&
        active.size < concurrency &&
        exported.length + active.size < groupsPerStep
      ) {
        launch();
      }
      if (active.size === 0) break;
      const { slot, result, cursor } = await Promise.race(active.values());
      active.delete(slot);
      this.#evalResident = active.size;
      results.push(result);
      if (tally.record(result) === "exported") exported.push(result);
      try {
        options.onGroup?.(result, { cursor, groupIndex: slot });
      } catch (error) {
        logger.warn(
          { rollout: rolloutId, group: result.groupId, err: String(error) },
          "onGroup callback threw",
        );
      }
    }

    exported.sort((a, b) => groupIndexOf(a) - groupIndexOf(b));
    const rows = exported.flatMap((result) => (result.kind === "exported" ? result.export.rows : []));
    const wallSeconds = (performance.now() - started) / 1000;
    logger.info(
      formatAgenticEvent("accounting_end", {
        rollout: rolloutId,
        mode,
        ...datasetField,
        groups: exported.length,
        rows: rows.length,
        dropped_groups: results.filter(
          (result) => result.kind === "dropped" && result.reason !== "interrupted",
        ).length,
        debt: groupsPerStep - exported.length,
        resident_groups: this.residentGroups,
        interrupted_groups: results.filter(
          (result) => result.kind === "dropped" && result.reason === "interrupted",
        ).length,
        wall_s: Number(wallSeconds.toFixed(2)),
      }),
    );
    reporter.endStep();
    if (signal?.aborted) {
      throw new RolloutInterruptedError({
        message: `rollout ${rolloutId} interrupted; every agent process was terminated`,
      });
    }
    if (tally.stalled !== undefined) throw tally.stalled;
    const metrics = stepMetrics({ results, mode, logPassrate: this.#options.logPassrate, ...datasetField });
    await this.#dump(rolloutId, mode, dataset, results);
    return { rolloutId, mode, ...datasetField, rows, groups: results, metrics, wallSeconds };
  }
}

function internalError(groupId: string, prompt: PromptItem, error: unknown): GroupResult {
  return {
    kind: "dropped",
    groupId,
    prompt,
    reason: "internal_error",
    message: error instanceof Error ? error.message : String(error),
    sessions: [],
    outcomes: [],
  };
}

/** An exported Group that finished after a synchronous step's debt was met: not trained. */
function overSampled(result: Extract<GroupResult, { kind: "exported" }>): GroupResult {
  return {
    kind: "dropped",
    groupId: result.groupId,
    prompt: result.prompt,
    reason: "over_sampled",
    message: "finished after the step's batch was complete (over-sampling surplus)",
    sessions: result.sessions,
    outcomes: result.outcomes,
    export: result.export,
  };
}

/**
 * Adds the cross-step fields to an exported Group's rows (see docs/contract.md#cross-step-scheduling):
 * `partition` (the train step whose batch the Group fills: the consuming step), `steps_lived` (the train steps the Group was resident in) and `weight_version_lag` (the consuming
 * step minus the oldest step in which one of the row's tokens was generated, from each turn's
 * `rolloutStep` metadata; 0 when unknown).
 */
function annotateRows(result: GroupResult, resident: Resident, consumedStep: number): GroupResult {
  if (result.kind !== "exported") return result;
  const firstStep = new Map<string, number>();
  for (const context of result.export.contexts) {
    let oldest: number | undefined;
    for (const turn of context.sample.turns) {
      const step = turn.metadata?.rolloutStep;
      if (typeof step === "number" && (oldest === undefined || step < oldest)) oldest = step;
    }
    if (oldest !== undefined) firstStep.set(`${context.sessionId} ${context.stateHash}`, oldest);
  }
  const steps = [...resident.steps, consumedStep]
    .filter((step, i, all) => all.indexOf(step) === i)
    .sort((a, b) => a - b);
  for (const row of result.export.rows) {
    const oldest =
      firstStep.get(`${row.session_id} ${row.state_hash}`) ?? resident.leasedStep ?? consumedStep;
    row.partition = consumedStep;
    row.steps_lived = steps;
    row.weight_version_lag = Math.max(0, consumedStep - oldest);
  }
  return result;
}

/**
 * The step's metrics: the export pipeline's (over Groups that reached export) plus
 * `rollout/dropped_groups/<reason>` for Groups dropped before export (launch, barrier, agent failure),
 * with `rollout/dropped_groups` the sum of every per-reason count. Interrupted Groups are not drops.
 * Eval keys are prefixed `eval/<dataset>/` (`eval/` without a dataset name).
 */
export function stepMetrics(options: {
  results: readonly GroupResult[];
  mode: ExportMode;
  logPassrate: boolean;
  dataset?: string;
}): Record<string, number> {
  const { results, mode, logPassrate, dataset } = options;
  const prefix = mode === "eval" ? (dataset !== undefined ? `eval/${dataset}/` : "eval/") : "";
  const exportOutcomes: GroupExportOutcome[] = results.flatMap((result) =>
    result.export ? [result.export] : [],
  );
  const metrics = computeRolloutMetrics({ outcomes: exportOutcomes, logPassrate, prefix });
  const reasonKey = `${prefix}rollout/dropped_groups/`;
  for (const result of results) {
    if (result.kind === "dropped" && result.export === undefined && result.reason !== "interrupted") {
      const key = `${reasonKey}${result.reason}`;
      metrics[key] = (metrics[key] ?? 0) + 1;
    }
  }
  metrics[`${prefix}rollout/dropped_groups`] = Object.entries(metrics)
    .filter(([key]) => key.startsWith(reasonKey))
    .reduce((sum, [, count]) => sum + count, 0);
  return metrics;
}

function groupIndexOf(result: GroupResult): number {
  return result.kind === "exported" ? result.export.groupIndex : -1;
}

/** A Group dropped because the gateway shard serving it died (see `ShardPool`). */
