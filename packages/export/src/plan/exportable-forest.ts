import type { ConversationState } from "@relax/chat";
import { ExportMatchError, type TrainingSample } from "@relax/forest";

/** The part of a committed forest node the export step reads. */
export interface ExportNodeLike {
  /** State hash of the committed node (64-hex SHA-256 in `@relax/forest`). */
  stateHash: string;
}

/**
 * What the export step needs from a session's forest. `SessionForest` from `@relax/forest` satisfies it
 * structurally; tests can pass a small fake.
 *
 * - `matchExportState(state)`: the committed node whose canonical state equals `state` (any node, with
 *   at least one response on its lineage); throws `ExportMatchError` (marker
 *   `Symbol.for("relax.error.ExportMatchError")`) when there is none.
 * - `implicitExportLeaf()`: the single exportable leaf of a strictly linear history; throws
 *   `ExportMatchError` when there are zero or several exportable leaves or the history is not linear.
 * - `implicitExportSegments(options)` (optional): the leaves of a session split into segments, one per
 *   segment in order (`[implicitExportLeaf()]` when it never compacted nor switched agent); a segment starts
 *   at a compaction or, unless `options.agentContexts` is `false`, at an agent switch
 *   (docs/contract.md#agent-contexts); used instead of `implicitExportLeaf` when present;
 * - `buildSample(stateHash)`: the training sample of that node (tokens, loss mask, logprobs, trace).
 */
export interface ExportableForest {
  matchExportState(state: ConversationState): ExportNodeLike;
  implicitExportLeaf(): ExportNodeLike;
  implicitExportSegments?(options?: { agentContexts?: boolean }): ExportNodeLike[];
  buildSample(stateHash: string): TrainingSample;
}

/**
 * True when `error` is the forest's "no such exportable state" error (checked by marker, so it works
 * across bundled copies of `@relax/forest`, or by `name` for forests that do not use the marker).
 */
export function isExportMatchError(error: unknown): error is Error {
  return ExportMatchError.isInstance(error);
}
