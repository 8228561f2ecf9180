/**
 * @module @relax/forest
 * The SessionForest: committed conversation states of one session, chained state hashes, longest-prefix
 * matching with transition classes and drift tolerance, token deltas, training samples, export matching and
 * snapshots. Depends only on `@relax/chat` (a `TokenRenderer` is injected); no I/O.
 *
 * This file is the public contract: `SessionForest`, its option / result / node / sample types, the
 * snapshot schema and the typed errors. Test helpers are exported from `@relax/forest/testing`.
 */

export type { HistoryEdit, HistoryEditKind } from "./drift/history-edit";
// Errors
export { ExportMatchError, type ExportMatchFailure } from "./errors/export-match-error";
export { ForestInputError } from "./errors/forest-input-error";
export { NoResponseError } from "./errors/no-response-error";
export { SessionContextLengthError } from "./errors/session-context-length-error";
export { SnapshotError } from "./errors/snapshot-error";
export { StateConflictError } from "./errors/state-conflict-error";
export { UnknownStateError } from "./errors/unknown-state-error";
// Nodes, samples and turns
export type {
  ForestNode,
  ObservationNode,
  ResponseFinishReason,
  ResponseNode,
  RootNode,
  TurnTiming,
} from "./node/forest-node";
export type {
  SampleStatus,
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
  ExportMatch,
  ForestStats,
  MatchPolicy,
  SessionForestOptions,
} from "./session-forest-types";
// Snapshots
export { type ForestSnapshot, forestSnapshotSchema } from "./snapshot/forest-snapshot";
export type { CommitResponseInput } from "./turn/commit-response-input";
export type { TurnPlan, TurnRecord, TurnStatus } from "./turn/turn-record";
