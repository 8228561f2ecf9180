import type { PromptItem } from "../dataset/prompt-dataset";
import type { GroupResult } from "./run-group";

// How a finished Group counts: the one definition of a dropped, an interrupted and an over-sampled Group
// (docs/contract.md#cross-step-scheduling). Whatever decides "is this Group dropped?" asks here; reading a
// result's `reason` for a log line or a metric label is fine anywhere.

const INTERRUPTED = "interrupted";
const OVER_SAMPLED = "over_sampled";
/** Prefix of the reasons of drops the inference backend caused (`EngineHealth.classify`). */
export const BACKEND_DROP_PREFIX = "backend_";
const SHARD_FAILED = "shard_failed";

/** A Group that ended without rows (`kind: "dropped"`): a drop, or one of the {@link NOT_A_DROP} reasons. */
export type DroppedGroup = Extract<GroupResult, { kind: "dropped" }>;

/** A Group that exported its rows. */
export type ExportedGroup = Extract<GroupResult, { kind: "exported" }>;

/** A Group the run or its step ended under it (see {@link isInterruptedGroup}). */
export type InterruptedGroup = DroppedGroup & { reason: typeof INTERRUPTED };

/**
 * Reasons a Group ends without rows that are not drops: the run or step ended under it (`interrupted`), or it
 * finished after its step's batch was complete (`over_sampled`). Neither counts in `dropped_groups` nor in the
 * consecutive-drop budget.
 */
export const NOT_A_DROP: ReadonlySet<string> = new Set([INTERRUPTED, OVER_SAMPLED]);

/** True for a Group that counts as dropped (see {@link NOT_A_DROP}). */
export function isDroppedGroup(result: GroupResult): result is DroppedGroup {
  return result.kind === "dropped" && !NOT_A_DROP.has(result.reason);
}

/**
 * True for a Group the run or its step ended under it (a synchronous step close, the run's end, an aborted
 * step): not a drop, not replaced as a failure, not journaled (its prompt runs again on a resume).
 */
export function isInterruptedGroup(result: GroupResult): result is InterruptedGroup {
  return result.kind === "dropped" && result.reason === INTERRUPTED;
}

/** True for an exported Group that finished after its synchronous step's batch was complete: not trained. */
export function isOverSampledGroup(result: GroupResult): boolean {
  return result.kind === "dropped" && result.reason === OVER_SAMPLED;
}

/**
 * True for a Group that finished but whose rows no trainer gets, other than by an interruption: a drop or an
 * over-sampled surplus. `relax serve` streams each as a `group_dropped` record and counts it in its step's
 * `dropped_groups` (the run journal counts it as a dropped Group too).
 */
export function isDiscardedGroup(result: GroupResult): boolean {
  return isDroppedGroup(result) || isOverSampledGroup(result);
}

/** True for a drop the inference backend caused (`backend_<reason>`, see `EngineHealth.classify`). */
export function isBackendDrop(result: GroupResult): boolean {
  return isDroppedGroup(result) && result.reason.startsWith(BACKEND_DROP_PREFIX);
}

/** True for a Group dropped because the gateway shard serving it died (see `ShardPool`). */
export function isShardDrop(result: GroupResult): boolean {
  return isDroppedGroup(result) && result.reason === SHARD_FAILED;
}

/** The result of a Group whose run threw (a bug, not an agent's failure): dropped `internal_error`. */
export function internalErrorResult(groupId: string, prompt: PromptItem, error: unknown): DroppedGroup {
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

/** An exported Group that finished after a synchronous step's batch was complete: dropped `over_sampled`. */
export function overSampledResult(result: ExportedGroup): DroppedGroup {
  return {
    kind: "dropped",
    groupId: result.groupId,
    prompt: result.prompt,
    reason: OVER_SAMPLED,
    message: "finished after the step's batch was complete (over-sampling surplus)",
    sessions: result.sessions,
    outcomes: result.outcomes,
    export: result.export,
  };
}
