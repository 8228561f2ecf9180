import { SglangInvalidArgumentError } from "./errors/sglang-invalid-argument-error";
import { convertSamplingParams, type SamplingParams } from "./sampling-params";
import type { GenerateRequestWire } from "./sglang-api";

/**
 * Builds the body of `POST /generate` for one request: `rid`, `input_ids`, `sampling_params` (with
 * `skip_special_tokens: false`, `no_stop_trim: true`), `return_logprob`, and `image_data` in prompt order
 * when the prompt has images. Never `text`: the ids are
 * used by SGLang as given (no BOS, no chat template).
 *
 * Validates the arguments with a plain loop rather than zod, because `inputIds` may hold 100k+ ids.
 *
 * @throws SglangInvalidArgumentError naming the field (`inputIds[12]`, `sampling.maxNewTokens`, ...).
 */
export function convertGenerateRequest(options: GenerateRequestInput): GenerateRequestWire {
  const { rid, ...rest } = convertGenerateRequestParts(options);
  const { inputIds } = options;
  return { rid, input_ids: Array.isArray(inputIds) ? (inputIds as number[]) : Array.from(inputIds), ...rest };
}

/** What {@link convertGenerateRequest} reads. */
export interface GenerateRequestInput {
  rid: string;
  inputIds: ArrayLike<number>;
  imageData?: readonly string[];
  sampling?: SamplingParams | undefined;
  returnLogprob?: boolean;
}

/**
 * {@link convertGenerateRequest} without `input_ids` (validated all the same), for
 * `encodeGenerateBody`, which writes the ids itself: `rid` first, then the other fields in wire order.
 *
 * @throws SglangInvalidArgumentError naming the field.
 */
export function convertGenerateRequestParts({
  rid,
  inputIds,
  imageData,
  sampling,
  returnLogprob = true,
}: GenerateRequestInput): Omit<GenerateRequestWire, "input_ids"> {
  validateInputIds(inputIds);
  validateSampling(sampling);
  const wire: Omit<GenerateRequestWire, "input_ids"> = {
    rid,
    sampling_params: convertSamplingParams(sampling),
    return_logprob: returnLogprob,
  };
  if (imageData !== undefined && imageData.length > 0) {
    imageData.forEach((item, index) => {
      if (typeof item !== "string" || item.length === 0) {
        throw new SglangInvalidArgumentError({
          field: `imageData[${index}]`,
          reason: "must be a non-empty string",
        });
      }
    });
    wire.image_data = [...imageData];
  }
  return wire;
}

function validateInputIds(inputIds: ArrayLike<number>): void {
  if (inputIds == null || typeof inputIds.length !== "number") {
    throw new SglangInvalidArgumentError({ field: "inputIds", reason: "must be an array of token ids" });
  }
  if (inputIds.length === 0) {
    throw new SglangInvalidArgumentError({ field: "inputIds", reason: "must not be empty" });
  }
  // An Int32Array holds integers only: a sign check suffices.
  const typed = inputIds instanceof Int32Array;
  for (let index = 0; index < inputIds.length; index++) {
    const id = inputIds[index]!;
    if (typed ? id < 0 : !Number.isInteger(id) || id < 0) {
      throw new SglangInvalidArgumentError({
        field: `inputIds[${index}]`,
        reason: `must be a non-negative integer token id, got ${JSON.stringify(id)}`,
      });
    }
  }
}

function checkNumber(
  value: number | undefined,
  field: string,
  {
    integer = false,
    min,
    max,
    minExclusive = false,
  }: { integer?: boolean; min?: number; max?: number; minExclusive?: boolean },
): void {
  if (value == null) return;
  const bad =
    typeof value !== "number" ||
    Number.isNaN(value) ||
    (integer && !Number.isInteger(value)) ||
    (min !== undefined && (minExclusive ? value <= min : value < min)) ||
    (max !== undefined && value > max);
  if (bad) {
    const range = [
      integer ? "an integer" : "a number",
      min !== undefined ? `${minExclusive ? ">" : ">="} ${min}` : "",
      max !== undefined ? `<= ${max}` : "",
    ]
      .filter(Boolean)
      .join(" ");
    throw new SglangInvalidArgumentError({
      field: `sampling.${field}`,
      reason: `must be ${range}, got ${JSON.stringify(value)}`,
    });
  }
}

function validateSampling(sampling: SamplingParams | undefined): void {
  if (sampling == null) return;
  checkNumber(sampling.maxNewTokens, "maxNewTokens", { integer: true, min: 0 });
  checkNumber(sampling.temperature, "temperature", { min: 0 });
  checkNumber(sampling.topP, "topP", { min: 0, max: 1, minExclusive: true });
  checkNumber(sampling.topK, "topK", { integer: true, min: -1 });
  checkNumber(sampling.minP, "minP", { min: 0, max: 1 });
  checkNumber(sampling.seed, "seed", { integer: true });
  checkNumber(sampling.minNewTokens, "minNewTokens", { integer: true, min: 0 });
  checkNumber(sampling.frequencyPenalty, "frequencyPenalty", { min: -2, max: 2 });
  checkNumber(sampling.presencePenalty, "presencePenalty", { min: -2, max: 2 });
  checkNumber(sampling.repetitionPenalty, "repetitionPenalty", { min: 0, max: 2, minExclusive: true });
  if (sampling.stopTokenIds != null) {
    if (!Array.isArray(sampling.stopTokenIds)) {
      throw new SglangInvalidArgumentError({ field: "sampling.stopTokenIds", reason: "must be an array" });
    }
    sampling.stopTokenIds.forEach((id, index) => {
      if (!Number.isInteger(id) || id < 0) {
        throw new SglangInvalidArgumentError({
          field: `sampling.stopTokenIds[${index}]`,
          reason: `must be a non-negative integer token id, got ${JSON.stringify(id)}`,
        });
      }
    });
  }
  if (sampling.stop != null) {
    const stops = Array.isArray(sampling.stop) ? sampling.stop : [sampling.stop];
    stops.forEach((stop, index) => {
      if (typeof stop !== "string" || stop.length === 0) {
        throw new SglangInvalidArgumentError({
          field: Array.isArray(sampling.stop) ? `sampling.stop[${index}]` : "sampling.stop",
          reason: "must be a non-empty string",
        });
      }
    });
  }
}
