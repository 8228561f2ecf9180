import { isInterruptedGroup } from "../group/group-outcome";
import type { GroupResult } from "../group/run-group";
import type { RolloutControllerOptions } from "./controller-options";
import type { ControllerStep, PoolAtClose, StepScheduler } from "./controller-step";
import { type GroupLauncher, launchGroup } from "./launch-group";

/** An eval Group running, until its step records it. */
type EvalGroup = Promise<{ slot: number; cursor: number; result: GroupResult }>;

/**
 * How eval steps run their Groups: none of the train step's cross-step scheduling (no carry-over, no
 * prelaunch, no over-sampling). A step's Groups are its own, leased at once, over the eval prompts from the
 * first, at most `concurrency` at once and never more than the step still needs. An interrupted or stalled
 * step launches nothing more and records the Groups still running as they end; the run's signal and the
 * step's reach them through their Group context.
 */
export class EvalScheduler implements StepScheduler {
  readonly dataset: string | undefined;
  readonly #context: RolloutControllerOptions;
  /** The step's Groups launched and not recorded yet, by Group index. */
  readonly #running = new Map<number, EvalGroup>();
  /** Groups resident in the whole controller (train ones included), for `resident_groups`. */
  readonly #controllerResident: () => number;

  constructor(
    context: RolloutControllerOptions,
    dataset: string | undefined,
    controllerResident: () => number,
  ) {
    this.#context = context;
    this.dataset = dataset;
    this.#controllerResident = controllerResident;
  }

  /** Eval Groups launched and not yet recorded. */
  get residentGroups(): number {
    return this.#running.size;
  }

  prepare(): void {}

  startFields(): Record<string, number> {
    return {};
  }

  open(): void {}

  async schedule(step: ControllerStep): Promise<void> {
    const { signal } = step;
    const running = this.#running;
    const group = this.#context.group;
    const launcher: GroupLauncher = {
      group: signal !== undefined ? { ...group, signal } : group,
      engineHealth: this.#context.engineHealth,
    };
    let nextGroupIndex = step.options.firstGroupIndex ?? 0;
    let nextCursor = 0;
    const launch = () => {
      const { rolloutId, prompts, groupSize, mode } = step.options;
      const slot = nextGroupIndex++;
      const cursor = nextCursor++;
      const prompt = prompts[cursor % prompts.length]!;
      const options = { groupIndex: slot, prompt, size: groupSize, mode, rolloutId };
      running.set(
        slot,
        launchGroup(launcher, options, signal).then((result) => ({ slot, cursor, result })),
      );
    };
    while (step.exported.length < step.demand) {
      while (
        step.tally.stalled === undefined &&
        !signal?.aborted &&
        running.size < step.options.concurrency &&
        step.exported.length + running.size < step.demand
      ) {
        launch();
      }
      if (running.size === 0) break;
      const { slot, result, cursor } = await Promise.race(running.values());
      running.delete(slot);
      step.record(result, { cursor, groupIndex: slot });
    }
  }

  closed(step: ControllerStep): PoolAtClose {
    return {
      residentGroups: this.#controllerResident(),
      interruptedGroups: step.count(isInterruptedGroup),
    };
  }

  async interrupted(): Promise<void> {}

  stepReturned(): void {}
}
