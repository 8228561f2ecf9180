/**
 * @module @relax/view
 * `relax view`'s page: a pure page model built from debug dumps and training-rows files (runs, Groups,
 * sessions, the SessionForest as a tree, token strips with loss mask, logprobs, turn boundaries and
 * weight-version spans, fork diffs) and a renderer producing one self-contained offline HTML file.
 * No I/O and no HTTP server here; the `relax` CLI reads the files and serves the page.
 *
 * This file is the public contract: parse the inputs, build the page model, render the page. The model's
 * parts and the debug-dump schema are in `@relax/view/internal` (unstable: they follow the page).
 */
export { ViewInputError } from "./errors/view-input-error";
export type { ViewDebugDump } from "./input/debug-dump-schema";
export { parseViewSource, type ViewSource } from "./input/parse-view-source";
export { type BuildViewModelOptions, buildViewModel } from "./model/build-view-model";
export type { ViewModel } from "./model/view-model";
export { renderPage } from "./render/render-page";
