export { canonicalToolArguments } from "./canonical-tool-arguments";
export { CanonicalizationError } from "./canonicalization-error";
export { canonicalizeContent } from "./canonicalize-content";
export {
  type CanonicalizeMessagesOptions,
  canonicalizeMessage,
  canonicalizeMessages,
  EMPTY_TOOL_RESULT,
} from "./canonicalize-messages";
export { canonicalizeState } from "./canonicalize-state";
export {
  canonicalizeTemplateKwargs,
  mergeTemplateKwargs,
  RESERVED_TEMPLATE_KWARGS,
} from "./canonicalize-template-kwargs";
export {
  type CanonicalizeToolsOptions,
  canonicalizeTools,
  EMPTY_TOOL_PARAMETERS,
} from "./canonicalize-tools";
export { compareCodePoints, stableStringify } from "./stable-stringify";
export {
  canonicalNumberLiteral,
  hasLoneSurrogate,
  JsonNumberLiteral,
  parseStrictJson,
  type StrictJsonValue,
} from "./strict-json";
