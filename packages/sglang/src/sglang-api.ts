/**
 * Zod schemas of SGLang's native HTTP API, in wire spelling. Request schemas are exact on the fields
 * Relax (and the stand-in engine) read; response schemas keep only the fields the client uses, every one
 * `.nullish()` because the set present varies across SGLang versions (v0.4 → v0.5.x/main).
 *
 * @see SGLang `python/sglang/srt/managers/io_struct.py` (`GenerateReqInput`),
 *   `sampling/sampling_params.py`, `entrypoints/http_server.py`.
 */
import { z } from "zod";

const tokenId = z.number().int().nonnegative();

/**
 * `sampling_params` of `POST /generate`. Unknown keys are kept (SGLang accepts many more, e.g.
 * `json_schema`, `logit_bias`, `custom_params`).
 */
export const samplingParamsWireSchema = z.looseObject({
  /** @default 128 */
  max_new_tokens: z.number().int().nonnegative().nullish(),
  /** `0` means greedy. @default 1.0 */
  temperature: z.number().nonnegative().nullish(),
  /** In (0, 1]. @default 1.0 */
  top_p: z.number().nullish(),
  /** `-1` means all. @default -1 */
  top_k: z.number().int().nullish(),
  min_p: z.number().nullish(),
  frequency_penalty: z.number().nullish(),
  presence_penalty: z.number().nullish(),
  repetition_penalty: z.number().nullish(),
  min_new_tokens: z.number().int().nonnegative().nullish(),
  /** String stops; the matched one is reported as `finish_reason.matched`. */
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  /** Extra stop ids on top of the model's EOS ids. */
  stop_token_ids: z.array(tokenId).nullish(),
  ignore_eos: z.boolean().nullish(),
  /** Affects `text` only; `output_ids` always keeps special tokens. @default true */
  skip_special_tokens: z.boolean().nullish(),
  spaces_between_special_tokens: z.boolean().nullish(),
  /** When false, the matched stop string/token is cut from `text` (never from `output_ids`). @default false */
  no_stop_trim: z.boolean().nullish(),
  n: z.number().int().positive().nullish(),
  /** Per-request sampling seed (newer builds). */
  sampling_seed: z.number().int().nullish(),
  stream_interval: z.number().int().positive().nullish(),
});

/**
 * `session_params` of `/generate` (SGLang's `SessionParams`): continue the engine session `id` from its
 * request `rid` (its prompt + output), cut to `offset` tokens when non-zero, then this request's
 * `input_ids`; `replace` drops the named request's children (or, without `rid`, the whole session);
 * `drop_previous_output` continues from the named request's prompt alone.
 */
export const sessionParamsWireSchema = z.object({
  id: z.string().min(1),
  rid: z.string().nullish(),
  offset: z.number().int().nonnegative().nullish(),
  replace: z.boolean().nullish(),
  drop_previous_output: z.boolean().nullish(),
});

/**
 * Body of `POST /generate` for a single request (SGLang's `GenerateReqInput`). Exactly one of `text`
 * and `input_ids` must be given; Relax always sends `input_ids`. Batch forms (`int[][]`, lists of
 * sampling params) are accepted by SGLang but not by this schema.
 */
export const generateRequestSchema = z
  .object({
    rid: z.string().min(1).nullish(),
    input_ids: z.array(tokenId).min(1, "input_ids must not be empty").nullish(),
    text: z.string().nullish(),
    sampling_params: samplingParamsWireSchema.nullish(),
    stream: z.boolean().nullish(),
    return_logprob: z.boolean().nullish(),
    /** `-1`: output logprobs only; `>= 0`: also prompt logprobs from that position. @default -1 */
    logprob_start_len: z.number().int().nullish(),
    top_logprobs_num: z.number().int().nonnegative().nullish(),
    return_text_in_logprobs: z.boolean().nullish(),
    routing_key: z.string().nullish(),
    priority: z.number().int().nullish(),
    /**
     * Images of the prompt, one per image placeholder in `input_ids`, in prompt order: URLs, `data:` URIs
     * or base64 (VLM servers only). SGLang expands each placeholder itself, so `meta_info.prompt_tokens`
     * counts the expanded prompt and can exceed `len(input_ids)`.
     */
    image_data: z.array(z.string().min(1)).nullish(),
    session_params: sessionParamsWireSchema.nullish(),
  })
  .refine((body) => (body.input_ids == null) !== (body.text == null), {
    message: "Either text or input_ids should be provided (exactly one)",
    path: ["input_ids"],
  });

/** A `[logprob, token_id, text|null]` triple. The logprob is `null` only for the first prompt token. */
export const logprobTripleSchema = z.union([
  z.tuple([z.number().nullable(), tokenId, z.string().nullable()]),
  // Some builds serialise the triple without the text slot.
  z.tuple([z.number().nullable(), tokenId]),
]);

/**
 * `meta_info.finish_reason`. `type` is kept as a string here so that an unknown value fails in the
 * mapper with a clear message instead of a zod union error.
 */
export const finishReasonWireSchema = z.looseObject({
  type: z.string(),
  /** EOS / `stop_token_ids` id, or the stop string; some old builds report a list of ids. */
  matched: z.union([z.number().int(), z.string(), z.array(z.number().int())]).nullish(),
  length: z.number().int().nullish(),
  message: z.string().nullish(),
  status_code: z.number().int().nullish(),
  err_type: z.string().nullish(),
});

/** `meta_info.weight_versions` (newer builds): which weight version produced which output positions. */
export const weightVersionSpanWireSchema = z.object({
  version: z.union([z.string(), z.number()]).transform(String),
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
});

/** `meta_info` of a `/generate` response or stream chunk, fields Relax uses only. */
export const generateMetaInfoSchema = z.object({
  id: z.string().nullish(),
  /** `null` while the request is still running (stream chunks). */
  finish_reason: finishReasonWireSchema.nullish(),
  prompt_tokens: z.number().int().nonnegative().nullish(),
  completion_tokens: z.number().int().nonnegative().nullish(),
  /** Prompt tokens served from the radix (prefix) cache. */
  cached_tokens: z.number().int().nonnegative().nullish(),
  /** Server weight label when the response was built (`--weight-version`, default `"default"`). */
  weight_version: z.union([z.string(), z.number()]).transform(String).nullish(),
  weight_versions: z.array(weightVersionSpanWireSchema).nullish(),
  output_token_logprobs: z.array(logprobTripleSchema).nullish(),
  /** End-to-end latency in seconds (last chunk only when streaming). */
  e2e_latency: z.number().nullish(),
});

/**
 * A non-streaming `/generate` response (one request), also the shape of each stream chunk. `text` is
 * absent with `--skip-tokenizer-init`; `output_ids` is absent after an abort before prefill in older
 * builds.
 */
export const generateResponseSchema = z.object({
  text: z.string().nullish(),
  output_ids: z.array(tokenId).nullish(),
  meta_info: generateMetaInfoSchema,
});

/** `{"error": {...}}` event inside a `/generate` stream (a `ValueError` raised mid-stream). */
export const streamErrorChunkSchema = z.object({
  error: z.union([z.string(), z.looseObject({ message: z.string().nullish() })]),
});

/** Body of `POST /abort_request`. An empty rid without `abort_all` is ignored by SGLang. */
export const abortRequestSchema = z.object({
  rid: z.string().nullish(),
  abort_all: z.boolean().nullish(),
});

/** Body of `POST /pause_generation`. @default mode "abort" */
export const pauseGenerationRequestSchema = z.object({
  mode: z.enum(["abort", "retract", "in_place"]).nullish(),
});

/** Reply of `/pause_generation` and `/continue_generation`. */
export const controlStatusResponseSchema = z.looseObject({
  message: z.string().nullish(),
  status: z.string().nullish(),
});

/** Body of `POST /update_weight_version`. */
export const updateWeightVersionRequestSchema = z.object({
  new_version: z.union([z.string(), z.number()]).transform(String),
  /** @default true */
  abort_all_requests: z.boolean().nullish(),
});

/** Body of `POST /update_weights_from_disk`. */
export const updateWeightsFromDiskRequestSchema = z.looseObject({
  model_path: z.string().nullish(),
  load_format: z.string().nullish(),
  /** @default false */
  abort_all_requests: z.boolean().nullish(),
  weight_version: z.union([z.string(), z.number()]).transform(String).nullish(),
  /** @default true */
  flush_cache: z.boolean().nullish(),
});

/** Reply of the weight-update routes (`success: false` comes with HTTP 400). */
export const updateWeightsResponseSchema = z.looseObject({
  success: z.boolean(),
  message: z.string().nullish(),
  num_paused_requests: z.number().int().nullish(),
  new_version: z.union([z.string(), z.number()]).transform(String).nullish(),
});

/** `GET /get_model_info` (newer: `/model_info`). */
export const modelInfoResponseSchema = z.looseObject({
  model_path: z.string().nullish(),
  tokenizer_path: z.string().nullish(),
  is_generation: z.boolean().nullish(),
  preferred_sampling_params: z.unknown().nullish(),
  weight_version: z.union([z.string(), z.number()]).transform(String).nullish(),
  has_image_understanding: z.boolean().nullish(),
  has_audio_understanding: z.boolean().nullish(),
  model_type: z.string().nullish(),
  architectures: z.array(z.string()).nullish(),
});

/** `GET /get_server_info` (newer: `/server_info`): every server arg plus scheduler info. */
export const serverInfoResponseSchema = z.looseObject({
  context_length: z.number().int().nullish(),
  weight_version: z.union([z.string(), z.number()]).transform(String).nullish(),
  version: z.string().nullish(),
  max_total_num_tokens: z.number().int().nullish(),
  max_req_input_len: z.number().int().nullish(),
  tool_call_parser: z.string().nullish(),
  reasoning_parser: z.string().nullish(),
  internal_states: z.array(z.record(z.string(), z.unknown())).nullish(),
});

/**
 * The router's worker list: sgl-model-gateway `GET /workers` → `{workers:[{url,...}], total, healthy}`;
 * the legacy `GET /list_workers` → `{urls:[...]}`.
 */
export const workerListResponseSchema = z.union([
  z.looseObject({ workers: z.array(z.looseObject({ url: z.string() })) }),
  z.looseObject({ urls: z.array(z.string()) }),
]);

/** Body of `POST /open_session` (SGLang's `OpenSessionReqInput`); the answer is the session id as a JSON string. */
export const openSessionRequestSchema = z.object({
  capacity_of_str_len: z.number().int(),
  session_id: z.string().min(1).nullish(),
});

/** Body of `POST /close_session` (SGLang's `CloseSessionReqInput`); answered 200 with an empty body. */
export const closeSessionRequestSchema = z.object({ session_id: z.string().min(1) });

export type SamplingParamsWire = z.infer<typeof samplingParamsWireSchema>;
export type SessionParamsWire = z.infer<typeof sessionParamsWireSchema>;
export type GenerateRequestWire = z.infer<typeof generateRequestSchema>;
export type GenerateResponseWire = z.infer<typeof generateResponseSchema>;
export type GenerateMetaInfoWire = z.infer<typeof generateMetaInfoSchema>;
export type FinishReasonWire = z.infer<typeof finishReasonWireSchema>;
export type LogprobTripleWire = z.infer<typeof logprobTripleSchema>;
export type ModelInfoWire = z.infer<typeof modelInfoResponseSchema>;
export type ServerInfoWire = z.infer<typeof serverInfoResponseSchema>;
