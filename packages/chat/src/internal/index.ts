/**
 * @module @relax/chat/internal
 * Canonicalisation helpers that other Relax packages share (protocol converters, the forest's state
 * hashes, the gateway's kwargs merge). **Unstable:** these may change or disappear in any release; embed
 * `@relax/chat` through its root entry instead.
 */
export { canonicalToolArguments } from "../canonical/canonical-tool-arguments";
export { EMPTY_TOOL_RESULT } from "../canonical/canonicalize-messages";
export { mergeTemplateKwargs } from "../canonical/canonicalize-template-kwargs";
export { EMPTY_TOOL_PARAMETERS } from "../canonical/canonicalize-tools";
export { sameJson } from "../canonical/same-json";
export { stableStringify } from "../canonical/stable-stringify";
export { DUMMY_PREFIX_MESSAGES } from "../template/create-chat-renderer";
