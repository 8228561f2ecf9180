export { ChatTemplateError, type ChatTemplateFailure } from "./chat-template-error";
export { ERROR_EXIT, ERROR_EXIT_CODES, type ErrorExitCategory, readErrorExit } from "./error-exit";
export { FieldError } from "./field-error";
export { formatFieldPath } from "./format-field-path";
export { ObservationDeltaError, type ObservationDeltaFailure } from "./observation-delta-error";
export { hasMarker, RelaxError } from "./relax-error";
export { TokenizerLoadError, type TokenizerLoadFailure } from "./tokenizer-load-error";
