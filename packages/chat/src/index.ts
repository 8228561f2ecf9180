/**
 * @module @relax/chat
 * Canonical chat types (the contract every Relax package shares), tokenizers, chat-template rendering,
 * observation deltas and reasoning / tool-call parsers.
 */

export type * from "./generation/assistant-turn";
export type * from "./generation/canonical-request";
export * from "./messages/chat-message";
export * from "./messages/function-tool";
export type * from "./template/token-renderer";
export type * from "./tokenizer/text-tokenizer";
