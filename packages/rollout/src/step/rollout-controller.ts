import type { GroupResult } from "../group/run-group";
import type { ControllerStepOptions, RolloutControllerOptions, StepResult } from "./controller-options";
import { ControllerStep } from "./controller-step";
import { EvalScheduler } from "./eval-scheduler";
import { TrainScheduler } from "./train-scheduler";

/**
 * The rollout controller (see docs/contract.md#runtime-scheduling and
 * docs/contract.md#cross-step-scheduling): for each step, runs Groups of `n` sessions over the dataset
 * until `groupsPerStep` Groups have exported, with at most `concurrency` resident Groups (Prepare +
 * Runtime share the capacity; a Group's slot is freed when its agents exit, before export and reward). A
 * dropped Group is logged with its reason, counted, and replaced by the next prompt. Emits the
 * `accounting_start` / `accounting_end` log lines (`accounting_end` also for a step that stalls or is
 * interrupted, with its real debt).
 *
 * Train and eval steps are one {@link ControllerStep} each (bookkeeping and accounting), run by a
 * scheduler of their kind. Train Groups live in a resident pool that outlives a step
 * ({@link TrainScheduler}): with {@link CrossStepOptions} a Group is `preparing` → (`held`, prelaunched) →
 * `running` → finished, and may span several steps. Per-Group state machine: preparing → held (first
 * requests committed, waiting for the lease) → running → interrupted (dropped at a synchronous step close)
 * or finished (exported / dropped). Eval Groups are their step's own ({@link EvalScheduler}).
 */
export class RolloutController {
  readonly #options: RolloutControllerOptions;
  readonly #train: TrainScheduler;
  /** The eval step running, or the last one run. */
  #eval: EvalScheduler | undefined;

  constructor(options: RolloutControllerOptions) {
    this.#options = options;
    this.#train = new TrainScheduler(options);
  }

  /**
   * Position of the next train prompt: the number of train prompts taken so far (the dataset is cycled,
   * so prompt `cursor % prompts.length` comes next). Set it to continue a run at a given prompt.
   * Prompts of prelaunched and carried Groups count as taken.
   */
  get cursor(): number {
    return this.#train.pool.cursor;
  }

  set cursor(value: number) {
    if (!Number.isInteger(value) || value < 0)
      throw new RangeError(`cursor must be an integer >= 0, got ${value}`);
    this.#train.pool.cursor = value;
  }

  /** Groups the running step still owes of its batch; 0 between steps. */
  get debt(): number {
    return this.#train.debt;
  }

  /**
   * Finished train Groups waiting for the next step (they finished after the last step's batch was full,
   * or between steps); the next step consumes them first, oldest first.
   */
  get queuedGroups(): number {
    return this.#train.pool.queuedGroups;
  }

  /**
   * `--agentic-prelaunch`: the Groups started for a later step and not leased yet, with their agent
   * sessions (each session's first request committed and held at the barrier, or still arriving).
   */
  get prelaunched(): { groups: number; sessions: number } {
    return this.#train.pool.prelaunched;
  }

  /** Groups resident now (agents alive: Prepare, held and Runtime), train and eval. */
  get residentGroups(): number {
    return this.#train.pool.residentGroups + (this.#eval?.residentGroups ?? 0);
  }

  /** The train step running or last run (`undefined` before the first); the turn runner stamps turns with it. */
  get currentStep(): number | undefined {
    return this.#train.currentStep;
  }

  /**
   * Runs one step over `prompts` (train steps cycle from {@link cursor}; eval steps start at prompt 0).
   * @throws RolloutStalledError after `maxConsecutiveDrops` drops in a row.
   * @throws RolloutInterruptedError when the Group context's signal aborted.
   */
  async runStep(options: ControllerStepOptions): Promise<StepResult> {
    if (options.prompts.length === 0) throw new RangeError(`rollout ${options.rolloutId}: no prompts`);
    if (options.mode === "train") return new ControllerStep(this.#options, options, this.#train).run();
    this.#eval = new EvalScheduler(this.#options, options.dataset, () => this.residentGroups);
    return new ControllerStep(this.#options, options, this.#eval).run();
  }

  /**
   * Interrupts every resident train Group (held, running, carried) and waits until each has ended; their
   * results (dropped `interrupted`) are returned, not reported. Call it when the run ends.
   */
  interruptAll(): Promise<GroupResult[]> {
    return this.#train.interruptAll();
  }
}
