/**
 * @module @relax/chat
 * Canonical chat types (the contract every Relax package shares), canonicalisation, tokenizers,
 * chat-template rendering, observation deltas and reasoning / tool-call parsers.
 */

export * from "./canonical/index";
export { FieldError } from "./errors/field-error";
export { formatFieldPath } from "./errors/format-field-path";
export { hasMarker } from "./errors/relax-error";
export type * from "./generation/assistant-turn";
export type * from "./generation/canonical-request";
export * from "./messages/chat-message";
export * from "./messages/function-tool";
export * from "./parsers/index";
export * from "./template/index";
export type * from "./template/token-renderer";
export * from "./tokenizer/index";
export type * from "./tokenizer/text-tokenizer";
