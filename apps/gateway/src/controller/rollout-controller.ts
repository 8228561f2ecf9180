import type { ExportMode, GroupExportOutcome, TrainingRow } from "@relax/export";
import { computeRolloutMetrics, writeDebugDump, writeTrainingRowsFile } from "@relax/export";
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

/** What one rollout step produced. */
export interface StepResult {
  rolloutId: number;
  mode: ExportMode;
  rows: TrainingRow[];
  groups: GroupResult[];
  metrics: Record<string, number>;
  wallSeconds: number;
}

/** Thrown when the run was interrupted (SIGINT / SIGTERM); every agent has been terminated by then. */
export class RolloutInterruptedError extends Error {
  override readonly name = "RolloutInterruptedError";
}

/** Thrown when a step cannot fill its batch because every Group keeps failing. */
export class RolloutStalledError extends Error {
  override readonly name = "RolloutStalledError";
}

/**
 * The rollout controller (seed 000 "Runtime Scheduling"): for each step, runs Groups of
 * `n` sessions over the dataset until `groupsPerStep` Groups have exported, with at most `concurrency`
 * resident Groups (Prepare + Runtime share the capacity). A dropped Group is logged with its reason,
 * counted, and replaced by the next prompt. Emits the Python Relax's `accounting_start` /
 * `accounting_end` log lines.
 */
export class RolloutController {
  readonly #options: RolloutControllerOptions;
  #cursor = 0;

  constructor(options: RolloutControllerOptions) {
    this.#options = options;
  }

  /**
   * Runs one step over `prompts` (cycled from where the previous step stopped).
   * @throws RolloutStalledError after `maxConsecutiveDrops` drops in a row.
   */
  async runStep(options: {
    rolloutId: number;
    prompts: readonly PromptItem[];
    groupsPerStep: number;
    groupSize: number;
    concurrency: number;
    mode: ExportMode;
    output?: string;
  }): Promise<StepResult> {
    const { rolloutId, prompts, groupsPerStep, groupSize, concurrency, mode } = options;
    const { logger, reporter } = this.#options;
    const started = performance.now();
    const maxConsecutiveDrops = this.#options.maxConsecutiveDrops ?? Math.max(8, 3 * groupsPerStep);
    logger.info(
      formatAgenticEvent("accounting_start", {
        rollout: rolloutId,
        mode,
        sessions: groupsPerStep * groupSize,
        groups: groupsPerStep,
        final_backfill: false,
      }),
    );
    reporter.startStep({ rolloutId, mode, sessions: groupsPerStep * groupSize });

    const results: GroupResult[] = [];
    const exported: GroupResult[] = [];
    const active = new Map<number, Promise<{ slot: number; result: GroupResult }>>();
    let nextGroupIndex = 0;
    let consecutiveDrops = 0;
    let stalled: Error | undefined;
    let evalCursor = 0;

    const launch = () => {
      const slot = nextGroupIndex++;
      // Train steps continue through the dataset across steps (cycling); eval always starts at the top.
      const prompt = prompts[(mode === "eval" ? evalCursor++ : this.#cursor++) % prompts.length]!;
      const promise = runGroup(this.#options.group, {
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
    };

    const signal = this.#options.group.signal;
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
      results.push(result);
      if (result.kind === "exported") {
        consecutiveDrops = 0;
        exported.push(result);
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
          stalled = new RolloutStalledError(
            `rollout ${rolloutId}: ${consecutiveDrops} Groups dropped in a row (last: ${result.reason}: ${result.message.split("\n")[0]}); check --agent-command and the session logs`,
          );
        }
      }
    }
    if (signal?.aborted) {
      reporter.endStep();
      throw new RolloutInterruptedError(
        `rollout ${rolloutId} interrupted; every agent process was terminated`,
      );
    }
    if (stalled !== undefined) {
      reporter.endStep();
      throw stalled;
    }

    // Rows in Group order, so a trainer sees each Group's samples contiguously.
    exported.sort((a, b) => groupIndexOf(a) - groupIndexOf(b));
    const rows = exported.flatMap((result) => (result.kind === "exported" ? result.export.rows : []));
    const exportOutcomes: GroupExportOutcome[] = results.flatMap((result) =>
      result.export ? [result.export] : [],
    );
    const metrics = computeRolloutMetrics({
      outcomes: exportOutcomes,
      logPassrate: this.#options.logPassrate,
      prefix: mode === "eval" ? "eval/" : "",
    });
    const dropReasons = new Map<string, number>();
    for (const result of results) {
      if (result.kind === "dropped" && result.export === undefined) {
        dropReasons.set(result.reason, (dropReasons.get(result.reason) ?? 0) + 1);
      }
    }
    for (const [reason, count] of dropReasons)
      metrics[`${mode === "eval" ? "eval/" : ""}rollout/dropped_groups/${reason}`] = count;
    if (options.output !== undefined) {
      await writeTrainingRowsFile({
        path: options.output,
        rows,
        append: !options.output.includes("{rollout_id}") && rolloutId > 0,
      });
    }
    if (this.#options.saveDebugRolloutData !== undefined) {
      const path = await writeDebugDump({
        pathTemplate: this.#options.saveDebugRolloutData,
        rolloutStep: rolloutId,
        mode,
        outcomes: exportOutcomes,
        decode: this.#options.decode,
        sessions: new Map(
          results.flatMap((result) =>
            result.export
              ? [
                  [
                    result.export.groupIndex,
                    result.sessions.map((s) => ({ sessionId: s.id, forest: s.forest })),
                  ] as const,
                ]
              : [],
          ),
        ),
      });
      logger.info({ path }, "debug rollout data written");
    }
    const wallSeconds = (performance.now() - started) / 1000;
    logger.info(
      formatAgenticEvent("accounting_end", {
        rollout: rolloutId,
        mode,
        groups: exported.length,
        rows: rows.length,
        dropped_groups: results.length - exported.length,
        debt: groupsPerStep - exported.length,
        resident_groups: active.size,
        wall_s: Number(wallSeconds.toFixed(2)),
      }),
    );
    reporter.endStep();
    return { rolloutId, mode, rows, groups: results, metrics, wallSeconds };
  }
}

function groupIndexOf(result: GroupResult): number {
  return result.kind === "exported" ? result.export.groupIndex : -1;
}
