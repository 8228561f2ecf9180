import type { GatewaySession } from "@relax/agent-api";
import type { PromptItem } from "../dataset/prompt-dataset";
import type { GroupControl, GroupLifeState, GroupResult } from "../group/run-group";
import type { GroupLifetime } from "./annotate-rows";
import { type GroupLauncher, launchGroup } from "./launch-group";
import { Wakeup } from "./wakeup";

/**
 * A train Group the controller launched whose agents have not all exited (or whose result is pending):
 * `preparing` → (`held`, prelaunched) → `running` → finished, possibly across several steps. Its lease is
 * explicit: a Group prelaunched for a later step without fully async is {@link awaitingLease} (its first requests
 * wait at the barrier) until a step leases it; every other Group is leased when it starts.
 */
export class ResidentGroup implements GroupLifetime {
  /** Index of the Group (`group_index` of its rows, part of its Group id). */
  readonly index: number;
  /** The prompt's position in the train dataset (the cursor value the Group took). */
  readonly cursor: number;
  readonly prompt: PromptItem;
  state: GroupLifeState = "preparing";
  /** The train step the Group works for (the next step for a prelaunched Group, until a step takes it). */
  forStep: number;
  /** Set once the Group is leased: the step that leased it. */
  leasedStep: number | undefined;
  /** Every train step during which the Group was resident. */
  readonly steps: number[];
  sessions: readonly GatewaySession[] = [];
  /** Aborting it interrupts this Group alone. */
  readonly interrupt = new AbortController();
  /** Settles once the Group's result is queued. */
  settled: Promise<void> = Promise.resolve();
  /** The lease, while the Group is held: resolves {@link leaseGranted}. */
  #grantLease: (() => void) | undefined;
  /** Resolves when a held Group is leased; undefined for a Group leased when it starts. */
  readonly leaseGranted: Promise<void> | undefined;

  constructor(start: { index: number; cursor: number; prompt: PromptItem; launch: TrainLaunch }) {
    const { launch } = start;
    this.index = start.index;
    this.cursor = start.cursor;
    this.prompt = start.prompt;
    this.forStep = launch.forStep;
    this.steps = [launch.runningStep];
    this.leaseGranted = launch.held
      ? new Promise<void>((resolve) => {
          this.#grantLease = resolve;
        })
      : undefined;
    this.leasedStep = launch.held ? undefined : launch.runningStep;
  }

  /** Prelaunched for a later step and waiting for its lease (see the class). */
  get awaitingLease(): boolean {
    return this.#grantLease !== undefined;
  }

  /** Leases a held Group for `step`, the step that opens for it (a Group leased already keeps its step). */
  leaseAtOpen(step: number): void {
    if (!this.#grant()) return;
    this.leasedStep ??= step;
  }

  /** Takes a Group started for a later step into `step` (it needs one now): it works for it, leased by it. */
  takeInto(step: number): void {
    this.forStep = step;
    this.#grant();
    this.leasedStep = step;
  }

  #grant(): boolean {
    const grant = this.#grantLease;
    if (grant === undefined) return false;
    this.#grantLease = undefined;
    grant();
    return true;
  }
}

/** How one train Group is started into the pool. */
export interface TrainLaunch {
  prompts: readonly PromptItem[];
  groupSize: number;
  /** The train step the Group is for (`rolloutId + 1` for a prelaunched Group). */
  forStep: number;
  /** Held after its first-request barrier until a step leases it (prelaunch without fully async). */
  held: boolean;
  /** The train step running while it starts. */
  runningStep: number;
  /** Prompt positions to take before the cursor (a step resumed from the run journal); consumed. */
  resumeCursors?: number[];
}

/** A train Group that finished and the result it finished with, until a step consumes it. */
export interface FinishedGroup {
  resident: ResidentGroup;
  result: GroupResult;
}

/**
 * The train Groups resident across steps (see docs/contract.md#cross-step-scheduling), the finished ones no
 * step consumed yet (they finished between steps, or are surplus), the train cursor and Group indices.
 * Every state change of a Group wakes {@link wakeup}.
 */
export class ResidentPool {
  readonly #launcher: GroupLauncher;
  /** The train step running (a Group leased at its barrier without a step takes it). */
  readonly #currentStep: () => number | undefined;
  readonly #residents = new Map<number, ResidentGroup>();
  readonly #finished: FinishedGroup[] = [];
  readonly wakeup = new Wakeup();
  /** Position of the next train prompt (see `RolloutController.cursor`). */
  cursor = 0;
  /** Next train Group index: global across steps when Groups may span steps, else per step. */
  nextIndex = 0;

  constructor(launcher: GroupLauncher, currentStep: () => number | undefined) {
    this.#launcher = launcher;
    this.#currentStep = currentStep;
  }

  /** Groups in the pool, exited ones whose result is pending included. */
  get size(): number {
    return this.#residents.size;
  }

  /** Groups resident now: agents alive (Prepare, held and Runtime). */
  get residentGroups(): number {
    let count = 0;
    for (const resident of this.#residents.values()) if (resident.state !== "exited") count++;
    return count;
  }

  /** Finished Groups no step consumed yet. */
  get queuedGroups(): number {
    return this.#finished.length;
  }

  /** Held Groups (prelaunched, not leased yet) and their sessions. */
  get prelaunched(): { groups: number; sessions: number } {
    let groups = 0;
    let sessions = 0;
    for (const resident of this.#residents.values()) {
      if (!resident.awaitingLease || resident.state === "exited") continue;
      groups++;
      sessions += resident.sessions.length;
    }
    return { groups, sessions };
  }

  /** Leased (or leasable now) Groups working for step `rolloutId` (carried ones included), or prelaunched ones. */
  count(rolloutId: number, which: "working" | "prelaunched"): number {
    let count = 0;
    for (const resident of this.#residents.values())
      if (which === "working" ? resident.forStep <= rolloutId : resident.forStep > rolloutId) count++;
    return count;
  }

  /** Starts one train Group into the pool; a `held` one waits for its lease after its barrier. */
  launch(launch: TrainLaunch): ResidentGroup {
    const index = this.nextIndex++;
    const cursor = launch.resumeCursors?.shift() ?? this.cursor++;
    const prompt = launch.prompts[cursor % launch.prompts.length]!;
    const resident = new ResidentGroup({ index, cursor, prompt, launch });
    const control: GroupControl = {
      // The run's signal reaches the Group through its context; a step that aborts interrupts them all.
      signal: resident.interrupt.signal,
      ...(resident.leaseGranted !== undefined ? { lease: resident.leaseGranted } : {}),
      onState: (state, sessions) => {
        resident.state = state;
        resident.sessions = sessions;
        if (state === "running" && resident.leasedStep === undefined)
          resident.leasedStep = this.#currentStep();
        this.wakeup.notify();
      },
    };
    const runSignal = this.#launcher.group.signal;
    const interrupt = resident.interrupt.signal;
    const waitSignal = runSignal !== undefined ? AbortSignal.any([runSignal, interrupt]) : interrupt;
    const options = { groupIndex: index, prompt, size: launch.groupSize, mode: "train" as const };
    resident.settled = launchGroup(
      this.#launcher,
      { ...options, rolloutId: launch.forStep, control },
      waitSignal,
    ).then((result) => {
      resident.state = "exited";
      this.#residents.delete(index);
      this.#finished.push({ resident, result });
      this.wakeup.notify();
    });
    this.#residents.set(index, resident);
    return resident;
  }

  /** Step `rolloutId` opens: every resident Group lives in it too; held ones working for it are leased. */
  openStep(rolloutId: number): void {
    for (const resident of this.#residents.values()) {
      if (!resident.steps.includes(rolloutId)) resident.steps.push(rolloutId);
      if (resident.forStep <= rolloutId) resident.leaseAtOpen(rolloutId);
    }
  }

  /** Takes the oldest Group started for a later step into step `rolloutId`; false when there is none. */
  takeOneInto(rolloutId: number): boolean {
    const later = [...this.#residents.values()].find((resident) => resident.forStep > rolloutId);
    later?.takeInto(rolloutId);
    return later !== undefined;
  }

  /** The oldest finished Group, taken off the queue. */
  nextFinished(): FinishedGroup | undefined {
    return this.#finished.shift();
  }

  /** Every finished Group, taken off the queue (oldest first). */
  takeFinished(): FinishedGroup[] {
    return this.#finished.splice(0);
  }

  /** Puts finished Groups back at the head of the queue (they fill the next step first). */
  requeue(finished: readonly FinishedGroup[]): void {
    this.#finished.unshift(...finished);
  }

  /** Interrupts the resident Groups `which` selects and waits until each has ended (its result queued). */
  async interrupt(which: (resident: ResidentGroup) => boolean, reason: string): Promise<void> {
    const residents = [...this.#residents.values()].filter(which);
    for (const resident of residents) resident.interrupt.abort(new DOMException(reason, "AbortError"));
    await Promise.all(residents.map((resident) => resident.settled));
  }

  /**
   * Interrupted train Groups: leased, unfinished, and every session interrupted — not protected, and
   * either with no live request (its agent is in a tool call or between turns) or, while the gate is
   * closed, with its requests held and none generating.
   */
  interruptedGroups(gateOpen: boolean): number {
    let count = 0;
    for (const resident of this.#residents.values()) {
      if (resident.state !== "running" || resident.sessions.length === 0) continue;
      const interrupted = resident.sessions.every(
        (session) =>
          !session.protected && (session.inflight === 0 || (!gateOpen && session.generating === 0)),
      );
      if (interrupted) count++;
    }
    return count;
  }
}
