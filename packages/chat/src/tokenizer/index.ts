export { RelaxError } from "../errors/relax-error";
export { TokenizerLoadError, type TokenizerLoadFailure } from "../errors/tokenizer-load-error";
export { type CreateTokenizerOptions, createTokenizer } from "./create-tokenizer";
export { type HfDecodeOptions, HfTokenizer, type HfTokenizerInit } from "./hf-tokenizer";
export { clearTokenizerCache, loadTokenizer } from "./load-tokenizer";
export { resolveTokenizerSource } from "./resolve-tokenizer-source";
export { collectStopTokenIds, KNOWN_STOP_TOKENS } from "./stop-token-ids";
export {
  type GenerationConfig,
  specialTokenContent,
  type TokenizerConfig,
  type TokenizerJson,
} from "./tokenizer-files";
