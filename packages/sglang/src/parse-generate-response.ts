import { SglangResponseError } from "./errors/sglang-response-error";
import { formatFieldPath } from "./format-field-path";
import type { FinishReason, GenerateResult } from "./generate-result";
import { mapSglangFinishReason } from "./map-sglang-finish-reason";
import {
  type GenerateMetaInfoWire,
  type GenerateResponseWire,
  generateResponseSchema,
  type LogprobTripleWire,
} from "./sglang-api";

/** Context the parser needs besides the body. */
export interface ParseGenerateResponseContext {
  /** Base URL the request went to (for error messages and `GenerateResult.url`). */
  url: string;
  /** The rid that was sent. */
  rid: string;
  /** `inputIds.length`, the fallback for a missing `prompt_tokens`. */
  inputTokens: number;
  /** Whether logprobs were requested; when true, missing logprobs for a non-empty output are an error. @default true */
  returnLogprob?: boolean;
  /** Client-measured latency to report. @default 0 */
  latencyMs?: number;
}

/**
 * Parses a non-streaming `/generate` response into a `GenerateResult`, tolerant of version differences
 * and strict where training data would be wrong.
 *
 * Tolerated: missing `text`, `cached_tokens`, `weight_version`, `e2e_latency`, `prompt_tokens`,
 * `completion_tokens`; `output_ids` absent (an abort before prefill in older builds) — the ids are then
 * taken from the logprob triples, or are empty; triples without the text slot; a one-element array.
 *
 * Rejected with `SglangResponseError` (field path in `path`): a body that is not a response object;
 * a missing `finish_reason`; an unknown finish type; logprobs whose count differs from `output_ids`, or
 * whose token ids differ from `output_ids`; a `null` output logprob; logprobs missing while requested.
 *
 * @see SGLang `tokenizer_manager.py` (`convert_logprob_style`), slime's check
 *   `[x[1] for x in output_token_logprobs] == output_ids`.
 */
export function parseGenerateResponse(body: unknown, context: ParseGenerateResponseContext): GenerateResult {
  const { url, rid } = context;
  let value = body;
  if (Array.isArray(value)) {
    if (value.length !== 1) {
      throw new SglangResponseError({
        url,
        rid,
        path: "(body)",
        reason: `expected one response object, got an array of ${value.length} (a batch or n > 1 reply)`,
      });
    }
    value = value[0];
  }
  const fast = parseWithCheckedArrays(value);
  if (fast !== undefined) return buildGenerateResult(fast, context);
  const parsed = generateResponseSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SglangResponseError({ url, rid, path: formatFieldPath(issue.path), reason: issue.message });
  }
  return buildGenerateResult(parsed.data, context);
}

/**
 * The response validated as `generateResponseSchema` would, with its two per-token arrays (`output_ids`,
 * `meta_info.output_token_logprobs`) checked by a plain loop instead of zod (a zod tuple union per token
 * was most of a turn's parse): the rest goes through zod without them and they are put back as they
 * came. `undefined` when either array, or the rest, does not pass, so that the caller's full zod parse
 * reports the first issue exactly as before.
 */
function parseWithCheckedArrays(value: unknown): GenerateResponseWire | undefined {
  if (!isRecord(value) || !isRecord(value.meta_info)) return undefined;
  const { output_ids: ids, meta_info: meta, ...rest } = value;
  const { output_token_logprobs: triples, ...restMeta } = meta;
  const idsChecked = Array.isArray(ids);
  const triplesChecked = Array.isArray(triples);
  if (
    (idsChecked && !everyItem(ids, isTokenId)) ||
    (triplesChecked && !everyItem(triples, isLogprobTriple))
  ) {
    return undefined;
  }
  const light = {
    ...rest,
    ...(idsChecked ? {} : { output_ids: ids }),
    meta_info: triplesChecked ? restMeta : meta,
  };
  const parsed = generateResponseSchema.safeParse(light);
  if (!parsed.success) return undefined;
  if (idsChecked) parsed.data.output_ids = ids as number[];
  if (triplesChecked) parsed.data.meta_info.output_token_logprobs = triples as LogprobTripleWire[];
  return parsed.data;
}

/** Like `Array.prototype.every`, but a hole counts as `undefined` (as zod reads it), not as skipped. */
function everyItem(array: unknown[], test: (value: unknown) => boolean): boolean {
  for (let i = 0; i < array.length; i++) if (!test(array[i])) return false;
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `tokenId` of the schema: a non-negative safe integer. */
function isTokenId(value: unknown): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** `logprobTripleSchema`: `[finite number | null, tokenId]` or `[finite number | null, tokenId, string | null]`. */
function isLogprobTriple(value: unknown): boolean {
  if (!Array.isArray(value) || (value.length !== 2 && value.length !== 3)) return false;
  const [logprob, id] = value;
  if (!(logprob === null || (typeof logprob === "number" && Number.isFinite(logprob)))) return false;
  return isTokenId(id) && (value.length === 2 || value[2] === null || typeof value[2] === "string");
}

/**
 * Turns one validated response (or the accumulated final stream state) into a `GenerateResult`.
 * Shared by the JSON and the streaming paths.
 */
export function buildGenerateResult(
  response: GenerateResponseWire,
  context: ParseGenerateResponseContext,
): GenerateResult {
  const meta = response.meta_info;
  const { outputIds, outputLogprobs } = alignOutput({
    outputIds: response.output_ids ?? undefined,
    triples: meta.output_token_logprobs ?? undefined,
    returnLogprob: context.returnLogprob ?? true,
    url: context.url,
    rid: context.rid,
  });
  return assembleGenerateResult({ meta, outputIds, outputLogprobs, context });
}

/** Builds the result from already aligned output ids and logprobs plus the final `meta_info`. */
export function assembleGenerateResult({
  meta,
  outputIds,
  outputLogprobs,
  context: { url, rid, inputTokens, latencyMs = 0 },
}: {
  meta: GenerateMetaInfoWire;
  outputIds: number[];
  outputLogprobs: number[];
  context: ParseGenerateResponseContext;
}): GenerateResult {
  const finishReason = mapFinish(meta, outputIds, url, rid);
  const result: GenerateResult = {
    rid,
    outputIds,
    outputLogprobs,
    finishReason,
    promptTokens: meta.prompt_tokens ?? inputTokens,
    completionTokens: meta.completion_tokens ?? outputIds.length,
    cachedTokens: meta.cached_tokens ?? 0,
    latencyMs,
    url,
  };
  if (meta.weight_version != null) result.weightVersion = meta.weight_version;
  if (meta.weight_versions != null) result.weightVersionSpans = meta.weight_versions;
  if (meta.e2e_latency != null) result.e2eLatencySeconds = meta.e2e_latency;
  return result;
}

function mapFinish(meta: GenerateMetaInfoWire, outputIds: number[], url: string, rid: string): FinishReason {
  if (meta.finish_reason == null) {
    throw new SglangResponseError({
      url,
      rid,
      path: "meta_info.finish_reason",
      reason: "missing on a final response (the request is reported as still running)",
    });
  }
  const mapped = mapSglangFinishReason(meta.finish_reason, {
    lastOutputId: outputIds[outputIds.length - 1],
    outputLength: outputIds.length,
  });
  if ("error" in mapped) {
    throw new SglangResponseError({ url, rid, path: "meta_info.finish_reason.type", reason: mapped.error });
  }
  return mapped;
}

/**
 * Checks that `output_ids` and `output_token_logprobs` describe the same tokens and returns them
 * aligned. Exported for the stream accumulator.
 */
export function alignOutput({
  outputIds,
  triples,
  returnLogprob,
  url,
  rid,
}: {
  outputIds: number[] | undefined;
  triples: LogprobTripleWire[] | undefined;
  returnLogprob: boolean;
  url: string;
  rid: string;
}): { outputIds: number[]; outputLogprobs: number[] } {
  const ids = outputIds ?? (triples ? triples.map((triple) => triple[1]) : []);
  if (triples == null) {
    if (returnLogprob && ids.length > 0) {
      throw new SglangResponseError({
        url,
        rid,
        path: "meta_info.output_token_logprobs",
        reason: `missing, but logprobs were requested and output_ids has ${ids.length} ids`,
      });
    }
    return { outputIds: ids, outputLogprobs: [] };
  }
  if (triples.length !== ids.length) {
    throw new SglangResponseError({
      url,
      rid,
      path: "meta_info.output_token_logprobs",
      reason: `has ${triples.length} entries but output_ids has ${ids.length}`,
    });
  }
  const logprobs = new Array<number>(ids.length);
  for (let index = 0; index < ids.length; index++) {
    const triple = triples[index]!;
    if (triple[1] !== ids[index]) {
      throw new SglangResponseError({
        url,
        rid,
        path: `meta_info.output_token_logprobs[${index}][1]`,
        reason: `token id ${triple[1]} differs from output_ids[${index}] = ${ids[index]}`,
      });
    }
    if (triple[0] == null) {
      throw new SglangResponseError({
        url,
        rid,
        path: `meta_info.output_token_logprobs[${index}][0]`,
        reason: "output logprob is null",
      });
    }
    logprobs[index] = triple[0];
  }
  return { outputIds: ids, outputLogprobs: logprobs };
}
