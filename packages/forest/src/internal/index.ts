/**
 * @module @relax/forest/internal
 * The parts of the SessionForest's public shapes that a workspace package may name: node kinds, finish
 * reasons, turn timings and statuses, sample statuses, history-edit kinds and export-match failure kinds;
 * the result of an export match, the forest's stats, and the snapshot format with its schema. **Unstable:**
 * these may change or disappear in any release; embed the forest through `@relax/forest`.
 */
export type { HistoryEditKind } from "../drift/history-edit";
export type { ExportMatchFailure } from "../errors/export-match-error";
export type {
  ObservationNode,
  ResponseFinishReason,
  ResponseNode,
  RootNode,
  TurnTiming,
} from "../node/forest-node";
export type { SampleStatus } from "../sample/training-sample";
export type { ExportMatch, ForestStats } from "../session-forest-types";
export { type ForestSnapshot, forestSnapshotSchema } from "../snapshot/forest-snapshot";
export type { TurnStatus } from "../turn/turn-record";
