/**
 * @module @relax/rollout/internal
 * The parts behind `@relax/rollout`'s root entry: the trainer control API's request, response and error
 * body schemas (docs/trainer-api.md), the run directory's files (the Group journal with its resume plan
 * and step-rows writer, the run state), and the eval helpers (an eval prompt's data, its dataset name, an
 * eval function's call and metrics). **Unstable:** these may change or disappear in any release; compose
 * with `@relax/rollout` through its root entry.
 */

// The trainer control API
export {
  controlErrorBodySchema,
  controlSchemas,
  statusResponseSchema,
  stepRequestSchema,
} from "../control/control-schemas";
// Evals
export { evalDatasetNameOf, parseEvalPromptData } from "../dataset/eval-prompt-data";
export { applyEvalFunction } from "../eval/eval-function";
// The Group journal and the run directory
export {
  GROUP_JOURNAL_FILE,
  planStepResume,
  readGroupJournal,
  StepRowsWriter,
} from "../journal/group-journal";
export { RUN_STATE_FILE, type RunState, writeRunState } from "../journal/run-dir";
