/**
 * @module @relax/view
 * `relax view`'s page: a pure page model built from debug dumps and training-rows files (runs, Groups,
 * sessions, the SessionForest as a tree, token strips with loss mask, logprobs, turn boundaries and
 * weight-version spans, fork diffs) and a renderer producing one self-contained offline HTML file.
 * No I/O and no HTTP server here; the `relax` CLI reads the files and serves the page.
 */
export { ViewInputError } from "./errors/view-input-error";
export {
  debugDumpSchema,
  type ViewDebugDump,
  type ViewDumpSample,
  type ViewDumpSession,
} from "./input/debug-dump-schema";
export { parseViewSource, type ViewSource } from "./input/parse-view-source";
export { type BuildContextViewOptions, buildContextView } from "./model/build-context-view";
export { type BuildForestViewOptions, buildForestView } from "./model/build-forest-view";
export { type BuildViewModelOptions, buildViewModel } from "./model/build-view-model";
export { diffHistories, type HistoryDifference } from "./model/history-diff";
export { viewMessage } from "./model/view-message";
export type {
  ContextImage,
  ContextView,
  DiffView,
  ForestView,
  GroupView,
  SessionView,
  SideForestView,
  StepView,
  StripTurn,
  TreeNodeView,
  TurnView,
  ViewMessage,
  ViewModel,
} from "./model/view-model";
export { renderPage } from "./render/render-page";
