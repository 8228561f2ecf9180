import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { TrainingRow } from "@relax/export";
import type { Logger } from "pino";
import { StepOrderError } from "../errors/step-order-error";
import type { GroupResult } from "../group/run-group";
import {
  GROUP_JOURNAL_FILE,
  planStepResume,
  readGroupJournal,
  resetGroupJournal,
  type StepResume,
  StepRowsWriter,
} from "../journal/group-journal";
import { type RunState, writeRunState } from "../journal/run-dir";
import { formatAgenticEvent } from "../report/create-logger";
import { roundMetrics } from "../report/round-metrics";
import type { GroupLaunchInfo, StepResult } from "../step/controller-options";
import type { EvalRun, RuntimeEvalOptions, StepRunner } from "../step/step-runner";

/** Options of {@link StepDriver}. */
export interface StepDriverOptions {
  /** The started runtime the steps run on; the driver never closes it. */
  runtime: StepRunner;
  /** `sha256:…` of the normalised configuration ({@link hashRolloutConfig}): journal and `state.json`. */
  configHash: string;
  /**
   * Absolute `--run-dir`: `state.json` after each step (and whenever the weight version changes), the Group
   * journal `groups.ndjson` during a step. Without it nothing survives a restart.
   */
  runDir?: string;
  /** The state read from the run directory at start ({@link openRunDir}): the run continues from it. */
  saved?: RunState | undefined;
  /** `--run-dir-force`: resume a journaled step started with another configuration. @default false */
  force?: boolean;
  logger: Logger;
}

/** Options of {@link StepDriver.runStep}. */
export interface DurableStepOptions {
  /** Must be {@link StepDriver.nextRolloutId}: steps run strictly in order. */
  rolloutId: number;
  /** Each finished Group of this process (exported, dropped), after its rows are queued for the rows file. */
  onGroup?: (result: GroupResult, info: GroupLaunchInfo) => void;
  /**
   * After a restart mid-step: the rows of the Groups the journal kept, before any new Group runs (contiguous
   * per Group, in the order they were written).
   */
  onResumedRows?: (rows: readonly TrainingRow[], resume: StepResume) => void;
  /**
   * Passed to the controller: prelaunch the next step's Groups in free capacity.
   * @default rolloutId + 1 < --num-rollout (`relax serve` passes its own default: true)
   */
  nextStepFollows?: boolean;
}

/** What {@link StepDriver.runStep} returns. */
export interface DurableStepResult {
  /** The step; its `rows` include the journaled rows of a resumed step, first. */
  step: StepResult;
  /** How the step continued after a restart, when it did. */
  resume?: StepResume;
  /** The rows file this step wrote (`{rollout_id}` replaced). */
  file: string;
}

/**
 * The one step lifecycle of `relax rollout` and `relax serve`: each train step's rows go to `--output` as
 * each Group finishes (appended and fsynced; a `{rollout_id}` file is written as `<file>.partial` and renamed
 * when the step completes), every finished Group is journaled in `<run-dir>/groups.ndjson`, `state.json` is
 * written atomically when a step ends (and, keeping the prompts a failed step took, when it fails), then the
 * journal is reset. A run opened on a directory that has them continues at the saved rollout id, dataset
 * cursor, weight version and eval point; the first step, when it is the one the run stood at, first replays
 * the Groups its journal kept and runs only the Groups still owed (the prompts that were in flight run again).
 *
 * `state.json`'s `weight_version` is the version loaded now (saved at every change, mid-step too, through
 * {@link saveWeightVersion}); its other fields describe the last step boundary.
 */
export class StepDriver {
  readonly #options: StepDriverOptions;
  readonly #runtime: StepRunner;
  /** What `state.json` says now (kept in memory so a weight-version save leaves the rest unchanged). */
  #state: RunState;
  /** The rollout id whose journal may be replayed, until the first step runs. */
  #resumeFor: number | undefined;
  #resume: Promise<StepResume | undefined> | undefined;

  constructor(options: StepDriverOptions) {
    this.#options = options;
    this.#runtime = options.runtime;
    const { saved } = options;
    this.#state = {
      config_hash: options.configHash,
      next_rollout_id: saved?.next_rollout_id ?? 0,
      dataset_cursor: saved?.dataset_cursor ?? options.runtime.cursor,
      weight_version: saved?.weight_version ?? null,
      eval: { last_rollout_id: saved?.eval.last_rollout_id ?? null },
    };
    if (saved !== undefined) {
      this.#runtime.cursor = saved.dataset_cursor;
      if (saved.weight_version !== null) this.#runtime.gate.setWeightVersion(saved.weight_version);
    }
    this.#resumeFor = options.runDir !== undefined ? this.#state.next_rollout_id : undefined;
  }

  /** The rollout id the next train step must have. */
  get nextRolloutId(): number {
    return this.#state.next_rollout_id;
  }

  /** The rollout id of the last eval run (saved across restarts), or null. */
  get lastEvalRolloutId(): number | null {
    return this.#state.eval.last_rollout_id;
  }

  /** The state `state.json` holds (or would hold, without a run dir). */
  get state(): Readonly<RunState> {
    return this.#state;
  }

  /**
   * How the step the run stood at continues after a restart, from the Group journal: undefined without a
   * run dir, once a step ran in this process, or when the journal holds nothing of that step.
   * @throws ConfigError when the journal belongs to another configuration (without `force`)
   */
  planResume(): Promise<StepResume | undefined> {
    const { runDir, logger } = this.#options;
    if (runDir === undefined || this.#resumeFor === undefined) return Promise.resolve(undefined);
    const rolloutId = this.#resumeFor;
    this.#resume ??= readGroupJournal(runDir).then(({ entries, torn }) => {
      if (torn > 0) {
        logger.warn(
          { journal: join(runDir, GROUP_JOURNAL_FILE), torn_lines: torn },
          "the Group journal ends in a torn line (a crash during its write); that Group runs again",
        );
      }
      return planStepResume({
        entries,
        rolloutId,
        configHash: this.#options.configHash,
        force: this.#options.force ?? false,
        journalPath: join(runDir, GROUP_JOURNAL_FILE),
      });
    });
    return this.#resume;
  }

  /**
   * Runs train step `rolloutId` durably (see the class). A step that throws (interrupted, stalled) leaves
   * every finished Group on disk and journaled, keeps its rollout id unconsumed and the prompts it took
   * taken.
   * @throws StepOrderError when `rolloutId` is not {@link nextRolloutId}
   * @throws what {@link StepRunner.runStep} throws (`RolloutInterruptedError`, `RolloutStalledError`, …)
   */
  async runStep(options: DurableStepOptions): Promise<DurableStepResult> {
    const { rolloutId } = options;
    if (rolloutId !== this.nextRolloutId) {
      throw new StepOrderError({ message: `rollout_id ${rolloutId} asked, next is ${this.nextRolloutId}` });
    }
    const runtime = this.#runtime;
    const resume = this.#resumeFor === rolloutId ? await this.planResume() : undefined;
    this.#resumeFor = undefined;
    const writer = await this.#openWriter(rolloutId, resume);
    const earlier = resume !== undefined ? await StepRowsWriter.readResumedRows(resume, writer.file) : [];
    if (resume !== undefined) options.onResumedRows?.(earlier, resume);
    let step: StepResult;
    try {
      step = await this.#runGroups(options, resume, writer);
    } finally {
      // Every finished Group is on disk (and journaled) before an error leaves the step; the prompts a
      // failed step took stay taken.
      await writer.flush().catch((error: unknown) => this.#logError("writing rows failed", error));
      this.#state = { ...this.#state, dataset_cursor: runtime.cursor };
      await this.#save().catch((error: unknown) => this.#logError("writing the run state failed", error));
    }
    await writer.finish();
    if (earlier.length > 0) step = { ...step, rows: [...earlier, ...step.rows] };
    this.#state = {
      ...this.#state,
      next_rollout_id: rolloutId + 1,
      dataset_cursor: runtime.cursor,
      weight_version: runtime.gate.weightVersion ?? this.#state.weight_version,
    };
    await this.#save();
    // state.json now says the step is done: its journal lines are spent.
    if (this.#options.runDir !== undefined) await resetGroupJournal(this.#options.runDir);
    this.#options.logger.info(
      roundMetrics(step.metrics),
      formatAgenticEvent("metrics", { rollout: rolloutId }),
    );
    const file = this.#runtime.output.replaceAll("{rollout_id}", String(rolloutId));
    return { step, ...(resume !== undefined ? { resume } : {}), file };
  }

  /**
   * Runs eval datasets as eval steps under `rolloutId` (their rows never go to the rows file), logs each
   * dataset's `eval/<name>/…` metrics as it finishes, then records the eval point in `state.json`.
   * @throws what {@link StepRunner.runEvals} throws
   */
  async runEvals(options: RuntimeEvalOptions): Promise<EvalRun[]> {
    const { logger } = this.#options;
    const runs = await this.#runtime.runEvals({
      ...options,
      // Log each dataset as it finishes, so a later dataset that fails does not take its metrics along.
      onDataset: (run) => {
        logger.info(
          roundMetrics(run.step.metrics),
          formatAgenticEvent("eval_metrics", { rollout: options.rolloutId, dataset: run.dataset }),
        );
        options.onDataset?.(run);
      },
    });
    this.#state = { ...this.#state, eval: { last_rollout_id: options.rolloutId } };
    await this.#save();
    return runs;
  }

  /**
   * The rows of finished train step `rolloutId` as its rows file holds them (JSONL, one row a line, `\n`
   * after each; the bytes written when the step ran, so a trainer that lost the step's stream gets the
   * same rows again). A per-step `--output` (`{rollout_id}`) is read whole; a single rows file is filtered
   * to the lines whose `partition` is `rolloutId` (rows written before `partition` existed are not found).
   * @throws StepOrderError when the step has not finished (`rolloutId >= nextRolloutId`)
   * @throws the file system's error when the rows file is gone (ENOENT)
   */
  async readStepRows(rolloutId: number): Promise<string> {
    if (rolloutId >= this.nextRolloutId) {
      throw new StepOrderError({
        message: `step ${rolloutId} has not finished (next_rollout_id is ${this.nextRolloutId}); its rows stream from POST /rollout/v1/steps`,
      });
    }
    const { output } = this.#runtime;
    const perStep = output.includes("{rollout_id}");
    const text = await readFile(output.replaceAll("{rollout_id}", String(rolloutId)), "utf8");
    if (perStep) return text;
    const mark = new RegExp(`"partition":${rolloutId}[,}]`);
    return text
      .split("\n")
      .filter(
        (line) => mark.test(line) && (JSON.parse(line) as { partition?: number }).partition === rolloutId,
      )
      .map((line) => `${line}\n`)
      .join("");
  }

  /**
   * Saves the weight version loaded now — `version` (weights just loaded under that name, e.g. a trainer's
   * `/weights`), else the one the gate names (a `/resume` or a step's `weight_version`) — so that a restart
   * labels tokens with the version loaded, not the one of the last step's end. The other fields of
   * `state.json` are left as they are.
   */
  async saveWeightVersion(version: string | null = this.#runtime.gate.weightVersion ?? null): Promise<void> {
    if (version === this.#state.weight_version) return;
    this.#state = { ...this.#state, weight_version: version };
    await this.#save();
  }

  async #openWriter(rolloutId: number, resume: StepResume | undefined): Promise<StepRowsWriter> {
    const runtime = this.#runtime;
    const { output } = runtime;
    const perStep = output.includes("{rollout_id}");
    const startCursor = runtime.cursor;
    if (resume !== undefined) runtime.cursor = resume.nextCursor;
    return StepRowsWriter.open({
      rolloutId,
      path: output.replaceAll("{rollout_id}", String(rolloutId)),
      perStep,
      append: !perStep && rolloutId > 0,
      cursor: startCursor,
      configHash: this.#options.configHash,
      ...(this.#options.runDir !== undefined ? { runDir: this.#options.runDir } : {}),
      ...(resume !== undefined ? { resume } : {}),
    });
  }

  /** The Groups still owed: the step's batch less the ones the journal kept exported. */
  async #runGroups(
    options: DurableStepOptions,
    resume: StepResume | undefined,
    writer: StepRowsWriter,
  ): Promise<StepResult> {
    const runtime = this.#runtime;
    const { rolloutId } = options;
    const batch = runtime.steps.train.groupsPerStep ?? runtime.prompts.length;
    const remaining = batch - (resume?.exported ?? 0);
    if (remaining <= 0)
      return { rolloutId, mode: "train", rows: [], groups: [], metrics: {}, wallSeconds: 0 };
    return runtime.runStep({
      rolloutId,
      mode: "train",
      groups: remaining,
      ...(options.nextStepFollows !== undefined ? { nextStepFollows: options.nextStepFollows } : {}),
      ...(resume !== undefined
        ? { resumeCursors: resume.pendingCursors, firstGroupIndex: resume.firstGroupIndex }
        : {}),
      onGroup: (result, info) => {
        writer.add(result, info);
        options.onGroup?.(result, info);
      },
    });
  }

  async #save(): Promise<void> {
    if (this.#options.runDir === undefined) return;
    await writeRunState(this.#options.runDir, this.#state);
  }

  #logError(message: string, error: unknown): void {
    this.#options.logger.error({ err: error instanceof Error ? error.message : String(error) }, message);
  }
}
