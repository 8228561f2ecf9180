import { appendFile, stat } from "node:fs/promises";
import type { Logger } from "pino";
import type { EngineHealth } from "../engine/engine-health";
import { RolloutStalledError } from "../errors/rollout-stalled-error";
import { type DroppedGroup, isDroppedGroup, isShardDrop } from "../group/group-outcome";
import type { GroupResult } from "../group/run-group";
import type { RunReporter } from "../report/run-reporter";

/** What {@link GroupTally.record} made of a Group. */
export type TallyKind = "exported" | "dropped" | "not_counted";

/** Options of {@link GroupTally}. */
export interface GroupTallyOptions {
  rolloutId: number;
  /** Drops in a row (backend drops aside) after which the step stalls. */
  maxConsecutiveDrops: number;
  logger: Logger;
  reporter: RunReporter;
  engineHealth?: EngineHealth | undefined;
}

/**
 * The accounting of one step's finished Groups, the same for train and eval steps: exported ones reset the
 * consecutive-drop count, dropped ones are logged (one WARN line: reason and headline; the agent's log tail in
 * `details`) and reported, and count towards `maxConsecutiveDrops` unless the backend caused them (engine
 * down, a gateway shard died: they say nothing about the agent). The step stalls
 * ({@link GroupTally.stalled}) when the engine is declared down or the budget is spent.
 */
export class GroupTally {
  readonly #options: GroupTallyOptions;
  #consecutiveDrops = 0;
  #stalled: RolloutStalledError | undefined;

  constructor(options: GroupTallyOptions) {
    this.#options = options;
  }

  /** The reason the step must stop, once it must; undefined while it may go on. */
  get stalled(): RolloutStalledError | undefined {
    return this.#stalled;
  }

  /** Counts one finished Group; see the class. */
  record(result: GroupResult): TallyKind {
    const { reporter } = this.#options;
    if (result.kind === "exported") {
      this.#consecutiveDrops = 0;
      reporter.groupExported(result);
      return "exported";
    }
    if (!isDroppedGroup(result)) return "not_counted";
    const { engineHealth, rolloutId } = this.#options;
    if (this.#saysSomethingAboutTheAgent(result)) this.#consecutiveDrops++;
    logDrop(this.#options.logger, rolloutId, result);
    reporter.groupDropped(result);
    const outage = engineHealth?.failure;
    if (outage !== undefined) this.#stall(`rollout ${rolloutId}: ${outage.message}`, outage);
    if (this.#consecutiveDrops >= this.#options.maxConsecutiveDrops) {
      this.#stall(
        `rollout ${rolloutId}: ${this.#consecutiveDrops} Groups dropped in a row (last: ${result.reason}: ${result.message.split("\n")[0]}); ${dropFix(result.reason)}`,
      );
    }
    return "dropped";
  }

  /** A drop the backend caused (engine down: `backend_*`; a gateway shard died) says nothing about the agent. */
  #saysSomethingAboutTheAgent(result: DroppedGroup): boolean {
    return !this.#options.engineHealth?.isBackendDrop(result) && !isShardDrop(result);
  }

  #stall(message: string, cause?: unknown): void {
    this.#stalled ??= new RolloutStalledError({ message, ...(cause !== undefined ? { cause } : {}) });
  }
}

/**
 * Drop reasons of a session whose export could not be planned (`NonFinalizableReason` of `@relax/export`,
 * docs/contract.md#export-records): the agent ran, but what it wrote or the history it left does not say
 * which contexts train.
 */
const EXPORT_DROP_REASONS: ReadonlySet<string> = new Set([
  "invalid_output",
  "empty_export",
  "duplicate_context_name",
  "reserved_context_name",
  "invalid_record",
  "unmatched_record",
  "duplicate_context_state",
]);

/**
 * What to do about a run of drops, by the last drop's reason: an ambiguous implicit export needs export
 * records (or agent contexts, for a history that switches agent: docs/contract.md#agent-contexts), another
 * export failure a fix of the agent's output, several contexts per session a custom advantage function;
 * anything else is the agent process's failure.
 */
export function dropFix(reason: string): string {
  if (reason === "ambiguous_implicit_export") {
    return (
      "the agent's history is not one linear context: write export records (docs/contract.md#export-records), " +
      "or set --agent-contexts train when it switches agent (system prompt, tools); see the session logs"
    );
  }
  if (EXPORT_DROP_REASONS.has(reason)) {
    return "fix the agent's export output (docs/contract.md#export-records); see the session logs";
  }
  if (reason === "multiple_contexts_without_custom_advantage") {
    return (
      "sessions export several contexts: set --agentic-multi-context and --agentic-custom-advantage-path " +
      "(docs/contract.md#custom-advantage), or export one context per session"
    );
  }
  return "check --agent-command and the session logs";
}

/**
 * One WARN line per dropped Group, readable by a person: the reason and the message's headline, and the last
 * line of the agent's log tail (`last_log_line`) with the session logs to open (`logs`). The whole message
 * (log tail, a stack) goes to DEBUG and is appended to each session's log file that still exists, so nothing
 * is lost while the console stays one line per drop.
 */
export function logDrop(logger: Logger, rolloutId: number, result: DroppedGroup): void {
  const [headline, ...details] = result.message.split("\n");
  const lastLine = details.map((line) => line.trim()).findLast((line) => line !== "");
  const logs = result.outcomes.flatMap((outcome) => (outcome.logPath ? [outcome.logPath] : []));
  const fields = {
    rollout: rolloutId,
    group: result.groupId,
    reason: result.reason,
    prompt_index: result.prompt.index,
  };
  logger.warn(
    {
      ...fields,
      ...(lastLine !== undefined ? { last_log_line: lastLine.slice(0, 240) } : {}),
      ...(logs.length > 0 ? { logs } : {}),
    },
    `AGENTIC Dropped 1 group: ${headline}`,
  );
  if (details.length === 0) return;
  logger.debug({ ...fields, details: details.join("\n").slice(-4000) }, "dropped Group: full message");
  const entry = `\n[relax] Group ${result.groupId} dropped (${result.reason}): ${result.message}\n`;
  for (const path of logs) {
    void stat(path)
      .then(() => appendFile(path, entry))
      .catch(() => undefined);
  }
}
