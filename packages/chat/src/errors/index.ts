export { ChatTemplateError, type ChatTemplateFailure } from "./chat-template-error";
export { ObservationDeltaError, type ObservationDeltaFailure } from "./observation-delta-error";
export { RelaxError } from "./relax-error";
export { TokenizerLoadError, type TokenizerLoadFailure } from "./tokenizer-load-error";
