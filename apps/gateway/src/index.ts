/**
 * @module @relax/gateway
 * The `relax` CLI: flag parsing, config loading, banner, summary and exit codes around `@relax/runtime`
 * (`relax rollout` loops over its step driver, `relax serve` puts its control API in front of it). Everything a
 * rollout is — controller, generation gate, journal, shards, the agent-facing service — is in `@relax/runtime`.
 */

export { addRolloutOptions, flagValues } from "./config/add-rollout-options";
export { formatBanner } from "./report/format-banner";
export {
  type EvalDatasetSummary,
  formatSummary,
  percentile,
  type RunSummary,
  summarizeRun,
} from "./report/format-summary";
export { type RolloutRun, type RunIo, runRollout } from "./run-rollout";
export {
  CONTROL_TOKEN_ENV,
  CONTROL_TOKEN_FILE,
  type ControlTokenSource,
  resolveControlToken,
} from "./serve/resolve-control-token";
export { formatServeBanner, type ServeHandle, type ServeIo, startServe } from "./serve/start-serve";
export {
  addViewCommand,
  runView,
  type ViewOptions,
  type ViewResult,
  viewCommandHint,
} from "./view/view-command";
