/**
 * @module @relax/forest
 * The SessionForest: committed conversation states of one session, chained state hashes, longest-prefix
 * matching with transition classes and drift tolerance, token deltas, training samples, export matching and
 * snapshots. Depends only on `@relax/chat` (a `TokenRenderer` is injected); no I/O.
 *
 * This file is the public contract: `SessionForest`, its options, the turn plan and commit types, nodes,
 * training samples and the typed errors. The parts of those shapes (node kinds, statuses, timings, failure
 * kinds), export matches, stats and the snapshot format are in `@relax/forest/internal` (unstable); test
 * helpers are exported from `@relax/forest/testing`.
 */

export type { HistoryEdit } from "./drift/history-edit";
// Errors
export { ExportMatchError } from "./errors/export-match-error";
export { ForestInputError } from "./errors/forest-input-error";
export { NoResponseError } from "./errors/no-response-error";
export { SessionContextLengthError } from "./errors/session-context-length-error";
export { SnapshotError } from "./errors/snapshot-error";
export { StateConflictError } from "./errors/state-conflict-error";
export { UnknownStateError } from "./errors/unknown-state-error";
// Nodes, samples and turns
export type { ForestNode } from "./node/forest-node";
export type {
  SegmentKind,
  TrainingSample,
  TransitionClass,
  TurnTrace,
  WeightVersionSpan,
} from "./sample/training-sample";
// The forest
export { SessionForest } from "./session-forest";
export type {
  BeginTurnOptions,
  CommitResult,
  ImplicitExportSegmentsOptions,
  MatchPolicy,
  SessionForestOptions,
} from "./session-forest-types";
export type { CommitResponseInput } from "./turn/commit-response-input";
export type { TurnPlan, TurnRecord } from "./turn/turn-record";
