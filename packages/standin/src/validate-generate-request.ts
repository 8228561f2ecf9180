import { randomUUID } from "node:crypto";
import {
  decodeDataUri,
  describeImageBytes,
  formatFieldPath,
  imageGrid,
  MediaInputError,
  type VisionProcessorConfig,
} from "@relax/chat";
import { generateRequestSchema, type SessionParamsWire } from "@relax/sglang/internal";
import type { ResponseShape } from "./build-generate-response";
import { OutputConstraintError, readOutputConstraint } from "./constraints/output-constraint";
import type { StandinEngineState } from "./standin-engine-state";
import { HttpProblem } from "./standin-http";
import type { StandinJob } from "./standin-scheduler";

/** A `/generate` request as received: its parsed body, lower-cased headers and when it arrived. */
export interface ReceivedGenerateRequest {
  body: unknown;
  headers: Record<string, string>;
  /** `performance.now()` at receipt (the job's `receivedAt`, for `e2e_latency`). */
  receivedAt: number;
}

/**
 * Validates a `/generate` body the way SGLang does (exactly one of `text` / `input_ids`, ids inside the
 * vocabulary, the context-length checks of `TokenizerManager._validate_one_request` with the same wording
 * and `>=` comparisons, no duplicate in-flight rid, at most one constraint that compiles — `json_schema` or
 * `structural_tag`, see `readOutputConstraint`) and builds the job and the reply shape. The limits
 * are the engine's (`state`): its tokenizer's vocabulary, context length and vision processor, and the
 * rids its scheduler has in flight.
 *
 * @throws HttpProblem 400 with SGLang's message.
 */
export function validateGenerateRequest(
  state: StandinEngineState,
  { body, headers, receivedAt }: ReceivedGenerateRequest,
): { job: StandinJob; shape: ResponseShape; sessionParams?: SessionParamsWire } {
  const { contextLength, scheduler, options } = state;
  const { tokenizer, vision } = options;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new HttpProblem(400, "The request body must be a JSON object");
  }
  const raw = body as Record<string, unknown>;
  if (Array.isArray(raw.input_ids) && Array.isArray(raw.input_ids[0])) {
    throw new HttpProblem(
      400,
      "Batch requests (input_ids as a list of lists) are not supported by the stand-in",
    );
  }
  if (Array.isArray(raw.text) || Array.isArray(raw.sampling_params) || Array.isArray(raw.rid)) {
    throw new HttpProblem(400, "Batch requests are not supported by the stand-in");
  }
  if (raw.input_ids == null && raw.text == null) {
    throw new HttpProblem(400, "Either text, input_ids or input_embeds should be provided.");
  }
  const parsed = generateRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new HttpProblem(400, `${formatFieldPath(issue.path) || "body"}: ${issue.message}`);
  }
  const request = parsed.data;
  const sampling = request.sampling_params ?? {};
  if ((sampling.n ?? 1) > 1) throw new HttpProblem(400, "n > 1 is not supported by the stand-in");
  const inputIds = request.input_ids ?? tokenizer.encode(request.text ?? "");
  if (inputIds.length === 0) throw new HttpProblem(400, "The input is empty");
  for (const id of inputIds) {
    if (id >= tokenizer.vocabSize) {
      throw new HttpProblem(
        400,
        `The input_ids contains values greater than the vocab size (${tokenizer.vocabSize}).`,
      );
    }
  }
  const imageData = request.image_data ?? [];
  const promptTokens = inputIds.length + imageExpansion(inputIds, imageData, vision);
  // SGLang TokenizerManager._validate_one_request, same wording and `>=` comparisons (on the expanded
  // prompt when it has images).
  if (promptTokens >= contextLength) {
    throw new HttpProblem(
      400,
      `The input (${promptTokens} tokens) is longer than the model's context length (${contextLength} tokens).`,
    );
  }
  const maxNewTokens = sampling.max_new_tokens;
  if (maxNewTokens != null && maxNewTokens + promptTokens >= contextLength) {
    const total = maxNewTokens + promptTokens;
    throw new HttpProblem(
      400,
      `Requested token count exceeds the model's maximum context length of ${contextLength} tokens. ` +
        `You requested a total of ${total} tokens: ${promptTokens} tokens from the input messages and ` +
        `${maxNewTokens} tokens for the completion. Please reduce the number of tokens in the input ` +
        "messages or the completion to fit within the limit.",
    );
  }
  let constraint: ReturnType<typeof readOutputConstraint>;
  try {
    constraint = readOutputConstraint(sampling);
  } catch (error) {
    if (error instanceof OutputConstraintError) throw new HttpProblem(400, error.message);
    throw error;
  }
  const rid = request.rid ?? randomUUID().replaceAll("-", "");
  if (scheduler.has(rid)) throw new HttpProblem(400, `Duplicate request ID detected: ${rid}`);
  const job: StandinJob = {
    rid,
    inputIds,
    sampling,
    headers,
    state: "waiting",
    outputIds: [],
    outputLogprobs: [],
    tokenVersions: [],
    cachedTokens: 0,
    ...(imageData.length > 0 ? { promptTokens, imageData } : {}),
    ...(constraint !== undefined ? { constraint } : {}),
    receivedAt,
    controller: new AbortController(),
  };
  const shape: ResponseShape = {
    returnLogprob: request.return_logprob ?? false,
    logprobStartLen: request.logprob_start_len ?? -1,
    returnTextInLogprobs: request.return_text_in_logprobs ?? false,
    skipSpecialTokens: sampling.skip_special_tokens ?? true,
    noStopTrim: sampling.no_stop_trim ?? false,
    weightVersionSpans: options.weightVersionSpans ?? false,
  };
  return { job, shape, ...(request.session_params != null ? { sessionParams: request.session_params } : {}) };
}

/**
 * Extra prompt tokens the images add: for each `image_data` entry, its processor token count minus the
 * one placeholder it replaces. The placeholders in `input_ids` must match `image_data` one to one; only
 * `data:` URIs are read (the stand-in reaches no network).
 *
 * @throws HttpProblem 400 for `image_data` on a text-only stand-in, a count mismatch, or an unreadable image.
 */
function imageExpansion(
  inputIds: readonly number[],
  imageData: readonly string[],
  vision: { processor: VisionProcessorConfig; imagePadId: number } | undefined,
): number {
  if (imageData.length === 0) return 0;
  if (vision === undefined) {
    throw new HttpProblem(
      400,
      "image_data was given but this stand-in serves a text-only model (no vision processor)",
    );
  }
  let placeholders = 0;
  for (const id of inputIds) if (id === vision.imagePadId) placeholders++;
  if (placeholders !== imageData.length) {
    throw new HttpProblem(
      400,
      `input_ids hold ${placeholders} image placeholder(s) (token ${vision.imagePadId}) but image_data has ${imageData.length} image(s)`,
    );
  }
  let extra = 0;
  imageData.forEach((item, index) => {
    const path = `image_data[${index}]`;
    try {
      const payload = decodeDataUri(item, path);
      if (payload === undefined) {
        throw new MediaInputError({ path, reason: "the stand-in reads data: URIs only (it fetches no URL)" });
      }
      const size = describeImageBytes(payload.bytes, path);
      extra += imageGrid(size.height, size.width, vision.processor).tokens - 1;
    } catch (error) {
      if (MediaInputError.isInstance(error)) throw new HttpProblem(400, `${path}: ${error.reason}`);
      throw error;
    }
  });
  return extra;
}
