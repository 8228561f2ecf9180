/**
 * @module @relax/chat
 * Canonical chat types (the contract every Relax package shares), canonicalisation, tokenizers,
 * chat-template rendering, observation deltas and reasoning / tool-call parsers.
 */
export * from "./messages/chat-message";
export * from "./messages/function-tool";
export type * from "./generation/canonical-request";
export type * from "./generation/assistant-turn";
export type * from "./tokenizer/text-tokenizer";
export type * from "./template/token-renderer";
export * from "./canonical/index";
export * from "./tokenizer/index";
export * from "./template/index";
export * from "./parsers/index";
