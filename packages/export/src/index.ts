/**
 * @module @relax/export
 * The export and credit pipeline: which committed contexts of a session become training rows, their
 * rewards, GRPO / RLOO / REINFORCE++-baseline normalisation or a custom advantage function, the
 * training-row wire format (zod + JSON Schema, JSONL), per-step metrics and debug dumps.
 *
 * This file is the public contract: the pipeline and its configuration, reward and advantage function
 * types, Group outcomes, the training-row schema and JSONL helpers, metrics, debug dumps and the typed
 * errors. The pipeline's inner steps (export plan, reward resolution, row building) are not exported.
 */

// Configuration
export { type ExportConfig, type ExportConfigInput, exportConfigSchema } from "./config/export-config";
export { type LoadFunctionOptions, loadFunction } from "./config/load-function";
export {
  assertExportConfig,
  type ExportConfigValidation,
  validateExportConfig,
} from "./config/validate-export-config";
// Credit
export type {
  AdvantageFunction,
  AdvantageInputSlot,
  AdvantageOutputSlot,
} from "./credit/advantage-function";
export {
  type AdvantageEstimator,
  type NormalizeGroupRewardsOptions,
  normalizeGroupRewards,
  type StdEstimator,
} from "./credit/normalize-group-rewards";
export {
  type NormalizeRewardsByGroupOptions,
  normalizeRewardsByGroup,
} from "./credit/normalize-rewards-by-group";
export type {
  SideCreditFunction,
  SideCreditInput,
  SideCreditResult,
} from "./credit/side-credit-function";
// Debug dump
export {
  type BuildDebugDumpOptions,
  buildDebugDump,
  type DebugDump,
  type DebugDumpGroup,
  type DebugDumpSample,
} from "./debug/build-debug-dump";
export {
  type DebugDumpForest,
  type DebugDumpForestNode,
  type DebugDumpForestTurn,
  type DebugDumpSession,
  type DebugDumpSessionInput,
  type DumpableForest,
  dumpSessionForest,
} from "./debug/dump-session-forest";
export { debugDumpPath, type WriteDebugDumpOptions, writeDebugDump } from "./debug/write-debug-dump";
// Errors
export { AdvantageResultError } from "./errors/advantage-result-error";
export { ExportConfigError, type ExportConfigIssue } from "./errors/export-config-error";
export { FunctionLoadError } from "./errors/function-load-error";
export { GroupSizeError } from "./errors/group-size-error";
export { RewardValueError } from "./errors/reward-value-error";
export { RowParseError } from "./errors/row-parse-error";
// Group pipeline
export {
  type CreateExportPipelineOptions,
  createExportPipeline,
  type ExportPipeline,
} from "./group/create-export-pipeline";
export { type ExportGroupOptions, exportGroup } from "./group/export-group";
export type {
  ExportedContext,
  ExportMode,
  GroupDropReason,
  GroupExportInput,
  GroupExportOutcome,
  GroupFilterReason,
  SessionDrop,
  SessionExportInput,
} from "./group/group-export-outcome";
export type { SideContextInput, SideForestLike } from "./group/side-contexts";
// Metrics
export {
  type ComputeRolloutMetricsOptions,
  computeRolloutMetrics,
} from "./metrics/compute-rollout-metrics";
// What the pipeline reads
export type { ExportableForest, ExportNodeLike } from "./plan/exportable-forest";
export type { ExportRecordLike, RewardValue, SessionOutputLike } from "./plan/session-output-like";
// Rewards
export type { GroupRewardFunction, RewardFunction, RewardFunctionInput } from "./reward/reward-function";
export type { AdvantageSource, RewardSource } from "./reward/reward-source";
// Rows
export {
  abortCountOf,
  type BuildTrainingRowOptions,
  buildTrainingRow,
} from "./rows/build-training-row";
export { createTrainingRowJsonSchema, type TrainingRow, trainingRowSchema } from "./rows/training-row";
export {
  formatTrainingRowsJsonl,
  type ParseTrainingRowsOptions,
  parseTrainingRowLine,
  parseTrainingRowsJsonl,
  readTrainingRowsFile,
  serializeTrainingRow,
  type TornRowLine,
  writeTrainingRowsFile,
} from "./rows/training-row-jsonl";
export { type TurnRewardsValue, turnRewardsSchema } from "./rows/turn-rewards";
