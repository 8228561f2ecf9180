/**
 * @module @relax/export
 * The export and credit pipeline: which committed contexts of a session become training rows, their
 * rewards, GRPO / RLOO / REINFORCE++-baseline normalisation or a custom advantage function, the
 * training-row wire format (zod + JSON Schema, JSONL), per-step metrics and debug dumps.
 *
 * This file is the public contract: the pipeline and its configuration, the reward, advantage and
 * side-credit function types a user module implements, the Group's input and outcome, the training-row
 * schema and JSONL helpers, metrics, debug dumps and the typed errors. The pipeline's inner steps (export
 * plan, reward resolution, row building) are not exported; the parts of these shapes, the normalisers,
 * the row and dump helpers and their option types are in `@relax/export/internal` (unstable).
 */

// Configuration
export type { ExportConfig, ExportConfigInput } from "./config/export-config";
export { loadFunction } from "./config/load-function";
export { assertExportConfig } from "./config/validate-export-config";
// Credit
export type { AdvantageFunction } from "./credit/advantage-function";
export type { SideCreditFunction } from "./credit/side-credit-function";
// Debug dump
export { buildDebugDump, type DebugDump } from "./debug/build-debug-dump";
export { debugDumpPath, writeDebugDump } from "./debug/write-debug-dump";
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
export { exportGroup } from "./group/export-group";
export type {
  ExportMode,
  GroupExportInput,
  GroupExportOutcome,
  SessionExportInput,
} from "./group/group-export-outcome";
// Metrics
export { computeRolloutMetrics } from "./metrics/compute-rollout-metrics";
// Rewards
export type { GroupRewardFunction, RewardFunction } from "./reward/reward-function";
// Rows
export { abortCountOf, buildTrainingRow } from "./rows/build-training-row";
export { type TrainingRow, trainingRowSchema } from "./rows/training-row";
export {
  formatTrainingRowsJsonl,
  parseTrainingRowsJsonl,
  readTrainingRowsFile,
  writeTrainingRowsFile,
} from "./rows/training-row-jsonl";
