/**
 * @module @relax/view/internal
 * The parts of `@relax/view`'s page model (steps, Groups, sessions, forest trees, token strips, diffs) and
 * the debug-dump schema the page reads. **Unstable:** they follow the page and may change or disappear in
 * any release; build and render the page through `@relax/view`.
 */
export {
  debugDumpSchema,
  type ViewDumpSample,
  type ViewDumpSession,
} from "../input/debug-dump-schema";
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
} from "../model/view-model";
