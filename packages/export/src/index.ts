/**
 * @module @relax/export
 * The export and credit pipeline: which committed contexts of a session become training rows, their
 * rewards, GRPO / RLOO / REINFORCE++-baseline normalisation or a custom advantage function, the
 * training-row wire format (zod + JSON Schema, JSONL), per-step metrics and debug dumps.
 */

// Configuration
export { type ExportConfig, type ExportConfigInput, exportConfigSchema } from "./config/export-config";
export { type FunctionSpec, parseFunctionSpec } from "./config/function-spec";
export { type LoadFunctionOptions, loadFunction } from "./config/load-function";
export { type ExportFunctions, resolveExportFunctions } from "./config/resolve-export-functions";
export {
  assertExportConfig,
  type ExportConfigIssue,
  type ExportConfigValidation,
  validateExportConfig,
} from "./config/validate-export-config";
// Credit
export {
  type AdvantageFunction,
  type AdvantageInputSlot,
  type AdvantageOutputSlot,
  validateAdvantageResult,
} from "./credit/advantage-function";
export {
  type AdvantageEstimator,
  groupStd,
  type NormalizeGroupRewardsOptions,
  normalizeGroupRewards,
  type StdEstimator,
} from "./credit/normalize-group-rewards";
export {
  type NormalizeRewardsByGroupOptions,
  normalizeRewardsByGroup,
} from "./credit/normalize-rewards-by-group";
// Debug dump
export {
  type BuildDebugDumpOptions,
  buildDebugDump,
  type DebugDump,
  type DebugDumpGroup,
  type DebugDumpSample,
  debugRolloutId,
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
export { ExportConfigError } from "./errors/export-config-error";
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
// Metrics
export {
  type ComputeRolloutMetricsOptions,
  computeRolloutMetrics,
  METADATA_METRIC_SKIP_KEYS,
} from "./metrics/compute-rollout-metrics";
export { estimatePassAtK, passRates } from "./metrics/pass-at-k";
export { mean, percentile, summaryStats } from "./metrics/summary-stats";
// Export plan
export { contextKey, IMPLICIT_CONTEXT_KEY } from "./plan/context-name";
export { type ExportableForest, type ExportNodeLike, isExportMatchError } from "./plan/exportable-forest";
export {
  type NonFinalizableReason,
  type PlannedContext,
  type PlanSessionExportOptions,
  planSessionExport,
  type SessionExportPlan,
} from "./plan/plan-session-export";
export {
  type ExportRecordLike,
  exportRecordLikeSchema,
  type RewardValue,
  type SessionOutputLike,
  sessionOutputLikeSchema,
} from "./plan/session-output-like";
export {
  type ResolvedReward,
  type ResolveRewardValueOptions,
  resolveRewardValue,
} from "./reward/resolve-reward-value";
// Rewards
export type { GroupRewardFunction, RewardFunction, RewardFunctionInput } from "./reward/reward-function";
// Rows
export { type BuildTrainingRowOptions, buildTrainingRow, stopReasonOf } from "./rows/build-training-row";
export { createTrainingRowJsonSchema, type TrainingRow, trainingRowSchema } from "./rows/training-row";
export {
  formatTrainingRowsJsonl,
  type ParseTrainingRowsOptions,
  parseTrainingRowLine,
  parseTrainingRowsJsonl,
  readTrainingRowsFile,
  serializeTrainingRow,
  writeTrainingRowsFile,
} from "./rows/training-row-jsonl";
