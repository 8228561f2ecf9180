/**
 * @module @relax/export/internal
 * The parts behind `@relax/export`'s root entry: the configuration schema and its pure validation, the
 * slots and inputs of the reward, advantage and side-credit functions, the reward and advantage sources,
 * the Group and session shapes the pipeline reads (`ExportableForest`, `SessionOutputLike`), its drop and
 * filter reasons, the group normalisers, the debug-dump parts, the training-row line helpers and JSON
 * Schema, and the option types of the root entry's functions. **Unstable:** these may change or disappear
 * in any release; compose with `@relax/export` through its root entry.
 */

// Configuration
export { exportConfigSchema } from "../config/export-config";
export type { LoadFunctionOptions } from "../config/load-function";
export { type ExportConfigValidation, validateExportConfig } from "../config/validate-export-config";
// Credit
export type { AdvantageInputSlot, AdvantageOutputSlot } from "../credit/advantage-function";
export {
  type AdvantageEstimator,
  type NormalizeGroupRewardsOptions,
  normalizeGroupRewards,
  type StdEstimator,
} from "../credit/normalize-group-rewards";
export {
  type NormalizeRewardsByGroupOptions,
  normalizeRewardsByGroup,
} from "../credit/normalize-rewards-by-group";
export type { SideCreditInput, SideCreditResult } from "../credit/side-credit-function";
// Debug dump
export type { BuildDebugDumpOptions, DebugDumpGroup, DebugDumpSample } from "../debug/build-debug-dump";
export {
  type DebugDumpForest,
  type DebugDumpForestNode,
  type DebugDumpForestTurn,
  type DebugDumpSession,
  type DebugDumpSessionInput,
  type DumpableForest,
  dumpSessionForest,
} from "../debug/dump-session-forest";
export type { WriteDebugDumpOptions } from "../debug/write-debug-dump";
// Group pipeline
export type { ExportGroupOptions } from "../group/export-group";
export type {
  ExportedContext,
  GroupDropReason,
  GroupFilterReason,
  SessionDrop,
} from "../group/group-export-outcome";
export type { SideContextInput, SideForestLike } from "../group/side-contexts";
// Metrics
export type { ComputeRolloutMetricsOptions } from "../metrics/compute-rollout-metrics";
// What the pipeline reads
export type { ExportableForest, ExportNodeLike } from "../plan/exportable-forest";
export type { ExportRecordLike, RewardValue, SessionOutputLike } from "../plan/session-output-like";
// Rewards
export type { RewardFunctionInput } from "../reward/reward-function";
export type { AdvantageSource, RewardSource } from "../reward/reward-source";
// Rows
export type { BuildTrainingRowOptions } from "../rows/build-training-row";
export { createTrainingRowJsonSchema } from "../rows/training-row";
export {
  type ParseTrainingRowsOptions,
  parseTrainingRowLine,
  serializeTrainingRow,
  type TornRowLine,
} from "../rows/training-row-jsonl";
export { type TurnRewardsValue, turnRewardsSchema } from "../rows/turn-rewards";
