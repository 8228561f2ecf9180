import { hasMarker, RelaxError } from "@relax/chat";
import type { ExportMode, GroupExportOutcome, TrainingRow } from "@relax/export";
import { computeRolloutMetrics, writeDebugDump } from "@relax/export";
import type { Logger } from "pino";
import { formatAgenticEvent } from "../report/create-logger";
import type { RunReporter } from "../report/run-reporter";
import type { PromptItem } from "./prompt-dataset";
import { type GroupContext, type GroupResult, runGroup } from "./run-group";

/** Options of {@link RolloutController}. */
export interface RolloutControllerOptions {
  group: GroupContext;
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
  onGroup?: (result: GroupResult) => void;
  /** Aborting it interrupts this step only (combined with the Group context's run signal). */
  signal?: AbortSignal;
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
}

const rolloutInterruptedErrorSymbol = Symbol.for("relax.error.RolloutInterruptedError");

/** Thrown when the run was interrupted (SIGINT / SIGTERM); every agent has been terminated by then. */
export class RolloutInterruptedError extends RelaxError {
  readonly [rolloutInterruptedErrorSymbol] = true;

  constructor({ message, cause }: { message: string; cause?: unknown }) {
    super({ name: "RolloutInterruptedError", message, cause });
  }

  /** True for any `RolloutInterruptedError`, from any copy of this package. */
  static override isInstance(error: unknown): error is RolloutInterruptedError {
    return hasMarker(error, "relax.error.RolloutInterruptedError");
  }
}

const rolloutStalledErrorSymbol = Symbol.for("relax.error.RolloutStalledError");

/** Thrown when a step cannot fill its batch because every Group keeps failing. */
export class RolloutStalledError extends RelaxError {
  readonly [rolloutStalledErrorSymbol] = true;

  constructor({ message, cause }: { message: string; cause?: unknown }) {
    super({ name: "RolloutStalledError", message, cause });
  }

  /** True for any `RolloutStalledError`, from any copy of this package. */
  static override isInstance(error: unknown): error is RolloutStalledError {
    return hasMarker(error, "relax.error.RolloutStalledError");
  }
}

/**
 * The rollout controller (see docs/contract.md#runtime-scheduling): for each step, runs Groups of
 * `n` sessions over the dataset until `groupsPerStep` Groups have exported, with at most `concurrency`
 * resident Groups (Prepare + Runtime share the capacity). A dropped Group is logged with its reason,
 * counted, and replaced by the next prompt. Emits the `accounting_start` / `accounting_end` log lines
 * (`accounting_end` also for a step that stalls or is interrupted, with its real debt).
 */
export class RolloutController {
  readonly #options: RolloutControllerOptions;
  #cursor = 0;
  #debt = 0;
  #resident = 0;

  constructor(options: RolloutControllerOptions) {
    this.#options = options;
  }

  /**
   * Position of the next train prompt: the number of train prompts taken so far (the dataset is cycled,
   * so prompt `cursor % prompts.length` comes next). Set it to continue a run at a given prompt.
   */
  get cursor(): number {
    return this.#cursor;
  }

  set cursor(value: number) {
    if (!Number.isInteger(value) || value < 0)
      throw new RangeError(`cursor must be an integer >= 0, got ${value}`);
    this.#cursor = value;
  }

  /** Groups the running step still owes (`groupsPerStep` minus exported Groups); 0 between steps. */
  get debt(): number {
    return this.#debt;
  }

  /** Groups resident now (launched and not finished: Prepare + Runtime). */
  get residentGroups(): number {
    return this.#resident;
  }

  /**
   * Runs one step over `prompts` (train steps cycle from {@link cursor}; eval steps start at prompt 0).
   * @throws RolloutStalledError after `maxConsecutiveDrops` drops in a row.
   * @throws RolloutInterruptedError when the Group context's signal aborted.
   */
  async runStep(options: ControllerStepOptions): Promise<StepResult> {
    const { rolloutId, prompts, groupsPerStep, groupSize, concurrency, mode } = options;
    const dataset = mode === "eval" ? options.dataset : undefined;
    const datasetField = dataset !== undefined ? { dataset } : {};
    const { logger, reporter } = this.#options;
    if (prompts.length === 0) throw new RangeError(`rollout ${rolloutId}: no prompts`);
    const started = performance.now();
    const maxConsecutiveDrops = this.#options.maxConsecutiveDrops ?? Math.max(8, 3 * groupsPerStep);
    logger.info(
      formatAgenticEvent("accounting_start", {
        rollout: rolloutId,
        mode,
        ...datasetField,
        sessions: groupsPerStep * groupSize,
        groups: groupsPerStep,
        final_backfill: false,
      }),
    );
    reporter.startStep({ rolloutId, mode, sessions: groupsPerStep * groupSize, ...datasetField });

    const results: GroupResult[] = [];
    const exported: GroupResult[] = [];
    const active = new Map<number, Promise<{ slot: number; result: GroupResult }>>();
    let nextGroupIndex = 0;
    let consecutiveDrops = 0;
    let stalled: Error | undefined;
    let evalCursor = 0;
    this.#debt = groupsPerStep;
    const signals = [this.#options.group.signal, options.signal].filter((item) => item !== undefined);
    const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
    const group = signal !== undefined ? { ...this.#options.group, signal } : this.#options.group;

    const launch = () => {
      const slot = nextGroupIndex++;
      // Train steps continue through the dataset across steps (cycling); eval always starts at the top.
      const prompt = prompts[(mode === "eval" ? evalCursor++ : this.#cursor++) % prompts.length]!;
      const promise = runGroup(group, {
        groupIndex: slot,
        prompt,
        size: groupSize,
        mode,
        rolloutId,
      }).then(
        (result) => ({ slot, result }),
        (error: unknown) => ({
          slot,
          result: {
            kind: "dropped" as const,
            groupId: `g${rolloutId}-${slot}`,
            prompt,
            reason: "internal_error",
            message: error instanceof Error ? error.message : String(error),
            sessions: [],
            outcomes: [],
          },
        }),
      );
      active.set(slot, promise);
      this.#resident = active.size;
    };

    while (exported.length < groupsPerStep) {
      while (
        stalled === undefined &&
        !signal?.aborted &&
        active.size < concurrency &&
        exported.length + active.size < groupsPerStep
      ) {
        launch();
      }
      if (active.size === 0) break;
      const { slot, result } = await Promise.race(active.values());
      active.delete(slot);
      this.#resident = active.size;
      results.push(result);
      if (result.kind === "exported") {
        consecutiveDrops = 0;
        exported.push(result);
        this.#debt = groupsPerStep - exported.length;
        reporter.groupExported(result);
      } else if (result.reason !== "interrupted") {
        consecutiveDrops++;
        // The headline goes in the message; the agent's log tail (why it failed) in `details`.
        const [headline, ...details] = result.message.split("\n");
        logger.warn(
          {
            rollout: rolloutId,
            group: result.groupId,
            reason: result.reason,
            prompt_index: result.prompt.index,
            ...(details.length > 0 ? { details: details.join("\n").slice(-4000) } : {}),
          },
          `AGENTIC Dropped 1 group: ${headline}`,
        );
        reporter.groupDropped(result);
        if (consecutiveDrops >= maxConsecutiveDrops && stalled === undefined) {
          stalled = new RolloutStalledError({
            message: `rollout ${rolloutId}: ${consecutiveDrops} Groups dropped in a row (last: ${result.reason}: ${result.message.split("\n")[0]}); check --agent-command and the session logs`,
          });
        }
      }
      try {
        options.onGroup?.(result);
      } catch (error) {
        logger.warn(
          { rollout: rolloutId, group: result.groupId, err: String(error) },
          "onGroup callback threw",
        );
      }
    }

    // Rows in Group order, so a trainer sees each Group's samples contiguously.
    exported.sort((a, b) => groupIndexOf(a) - groupIndexOf(b));
    const rows = exported.flatMap((result) => (result.kind === "exported" ? result.export.rows : []));
    const wallSeconds = (performance.now() - started) / 1000;
    const debt = this.#debt;
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
        debt,
        resident_groups: this.#resident,
        interrupted_groups: results.filter(
          (result) => result.kind === "dropped" && result.reason === "interrupted",
        ).length,
        wall_s: Number(wallSeconds.toFixed(2)),
      }),
    );
    this.#debt = 0;
    reporter.endStep();
    if (signal?.aborted) {
      throw new RolloutInterruptedError({
        message: `rollout ${rolloutId} interrupted; every agent process was terminated`,
      });
    }
    if (stalled !== undefined) throw stalled;

    const metrics = stepMetrics({ results, mode, logPassrate: this.#options.logPassrate, ...datasetField });
    if (this.#options.saveDebugRolloutData !== undefined) {
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
      logger.info({ path }, "debug rollout data written");
    }
    return { rolloutId, mode, ...datasetField, rows, groups: results, metrics, wallSeconds };
  }
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
