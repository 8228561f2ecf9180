import type { SamplingParamsWire } from "./sglang-api";

/**
 * Sampling parameters for `generate`, in camelCase; converted to SGLang's `sampling_params`.
 * Unset fields are not sent (the server's defaults, from `generation_config.json`, apply).
 *
 * @see SGLang `docs/basic_usage/sampling_params.md`
 */
export interface SamplingParams {
  /** Completion budget in tokens (`max_new_tokens`). SGLang's default is 128. */
  maxNewTokens?: number;
  /** `0` means greedy. */
  temperature?: number;
  /** In (0, 1]. */
  topP?: number;
  /** `-1` means all tokens. */
  topK?: number;
  minP?: number;
  /** String stops (`stop`). */
  stop?: string | string[];
  /** Extra stop token ids on top of the model's EOS ids (`stop_token_ids`). */
  stopTokenIds?: number[];
  /** Per-request sampling seed (`sampling_seed`, newer SGLang builds). */
  seed?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  repetitionPenalty?: number;
  minNewTokens?: number;
  ignoreEos?: boolean;
  /**
   * Further `sampling_params` in wire spelling (e.g. `{ json_schema: "..." }`), sent as given.
   * `skip_special_tokens` and `no_stop_trim` are always forced to `false` / `true`.
   */
  extra?: Record<string, unknown>;
}

/**
 * Converts `SamplingParams` to SGLang's `sampling_params`, always with `skip_special_tokens: false` and
 * `no_stop_trim: true` so that `text` (which Relax never uses for training) keeps markers and stops too.
 */
export function convertSamplingParams(sampling: SamplingParams = {}): SamplingParamsWire {
  const wire: Record<string, unknown> = { ...sampling.extra };
  if (sampling.maxNewTokens != null) wire.max_new_tokens = sampling.maxNewTokens;
  if (sampling.temperature != null) wire.temperature = sampling.temperature;
  if (sampling.topP != null) wire.top_p = sampling.topP;
  if (sampling.topK != null) wire.top_k = sampling.topK;
  if (sampling.minP != null) wire.min_p = sampling.minP;
  if (sampling.stop != null) wire.stop = sampling.stop;
  if (sampling.stopTokenIds != null) wire.stop_token_ids = sampling.stopTokenIds;
  if (sampling.seed != null) wire.sampling_seed = sampling.seed;
  if (sampling.frequencyPenalty != null) wire.frequency_penalty = sampling.frequencyPenalty;
  if (sampling.presencePenalty != null) wire.presence_penalty = sampling.presencePenalty;
  if (sampling.repetitionPenalty != null) wire.repetition_penalty = sampling.repetitionPenalty;
  if (sampling.minNewTokens != null) wire.min_new_tokens = sampling.minNewTokens;
  if (sampling.ignoreEos != null) wire.ignore_eos = sampling.ignoreEos;
  wire.skip_special_tokens = false;
  wire.no_stop_trim = true;
  return wire as SamplingParamsWire;
}
