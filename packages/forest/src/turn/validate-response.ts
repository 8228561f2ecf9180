import type { AssistantMessage } from "@relax/chat";
import { stableStringify } from "@relax/chat/internal";
import { ForestInputError } from "../errors/forest-input-error";
import type { ResponseFinishReason, TurnTiming } from "../node/forest-node";
import type { WeightVersionSpan } from "../sample/training-sample";
import type { CommitResponseInput } from "./commit-response-input";

const MAX_TOKEN_ID = 0x7fffffff;

/** Copies token ids into an `Int32Array`, checking each is an integer in `[0, 2^31)`. */
export function toTokenArray(ids: ArrayLike<number>, path: string): Int32Array {
  const out = new Int32Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (!Number.isInteger(id) || id < 0 || id > MAX_TOKEN_ID) {
      throw new ForestInputError({
        path: `${path}[${i}]`,
        reason: `must be a token id in [0, 2^31), got ${id}`,
      });
    }
    out[i] = id;
  }
  return out;
}

/**
 * Stored rollout logprobs: a `Float32Array` when every value is exactly a float32 value, else a
 * `Float64Array`. Either way each element reads back bit-identical to the number given (see
 * {@link compactLogprobs}).
 */
export type LogprobArray = Float32Array | Float64Array;

/**
 * The most compact exact storage of `values`: a `Float32Array` (4 bytes a value) when `Math.fround`
 * leaves every value unchanged, else `values` itself. SGLang computes logprobs in float32 and widens
 * them to doubles for JSON, so its logprobs take the 4-byte form; any other double keeps 8 bytes, so
 * exactness never depends on the engine.
 */
export function compactLogprobs(values: Float64Array): LogprobArray {
  for (let i = 0; i < values.length; i++) {
    if (Math.fround(values[i]!) !== values[i]) return values;
  }
  return Float32Array.from(values);
}

/**
 * Copies logprobs into a {@link LogprobArray}, checking they are finite and align with the tokens.
 * @throws ForestInputError naming the entry.
 */
export function toLogprobArray(logprobs: ArrayLike<number>, length: number, path: string): LogprobArray {
  if (logprobs.length !== length) {
    throw new ForestInputError({
      path,
      reason: `has ${logprobs.length} entries but outputIds has ${length}; rollout logprobs align 1:1 with generated tokens`,
    });
  }
  const out = new Float64Array(length);
  for (let i = 0; i < length; i++) {
    const value = logprobs[i]!;
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new ForestInputError({ path: `${path}[${i}]`, reason: `must be a finite number, got ${value}` });
    }
    // -0 would not survive a JSON snapshot; it carries no meaning for a logprob.
    out[i] = value === 0 ? 0 : value;
  }
  return compactLogprobs(out);
}

/** Checks the finish reason is one the forest records. */
export function checkFinishReason(value: unknown): ResponseFinishReason {
  if (value === "stop" || value === "length" || value === "abort") return value;
  throw new ForestInputError({
    path: "finishReason",
    reason: `must be "stop", "length" or "abort", got ${JSON.stringify(value)}`,
  });
}

/** Checks the message is an assistant message the forest can hash. */
export function checkAssistantMessage(message: AssistantMessage): AssistantMessage {
  if (message === null || typeof message !== "object" || message.role !== "assistant") {
    throw new ForestInputError({ path: "message.role", reason: "must be an assistant message" });
  }
  try {
    stableStringify(message, "message");
  } catch (error) {
    throw new ForestInputError({ path: "message", reason: (error as Error).message });
  }
  return structuredClone(message);
}

/**
 * Resolves weight versions into node-local spans: explicit `weightVersionSpans` must tile `[0, length)`
 * in order without gaps; a single `weightVersion` covers everything; neither gives no spans.
 */
export function resolveWeightSpans(options: {
  weightVersion?: string | undefined;
  weightVersionSpans?: readonly WeightVersionSpan[] | undefined;
  length: number;
}): WeightVersionSpan[] {
  const { weightVersion, weightVersionSpans, length } = options;
  if (weightVersionSpans !== undefined && weightVersionSpans.length > 0) {
    let position = 0;
    const spans: WeightVersionSpan[] = [];
    weightVersionSpans.forEach((span, i) => {
      const path = `weightVersionSpans[${i}]`;
      if (typeof span.version !== "string" || span.version === "") {
        throw new ForestInputError({ path: `${path}.version`, reason: "must be a non-empty string" });
      }
      if (span.start !== position || !Number.isInteger(span.end) || span.end <= span.start) {
        throw new ForestInputError({
          path,
          reason: `spans must tile [0, ${length}) in order; expected start ${position} and end > start, got [${span.start}, ${span.end})`,
        });
      }
      position = span.end;
      spans.push({ version: span.version, start: span.start, end: span.end });
    });
    if (position !== length) {
      throw new ForestInputError({
        path: "weightVersionSpans",
        reason: `spans end at ${position} but the response has ${length} tokens`,
      });
    }
    return spans;
  }
  if (weightVersion !== undefined) {
    if (typeof weightVersion !== "string" || weightVersion === "") {
      throw new ForestInputError({ path: "weightVersion", reason: "must be a non-empty string" });
    }
    return [{ version: weightVersion, start: 0, end: length }];
  }
  return [];
}

/** Checks timing values are finite, non-negative seconds. */
export function checkTiming(timing: TurnTiming | undefined): TurnTiming | undefined {
  if (timing === undefined) return undefined;
  const out: TurnTiming = {};
  for (const key of ["wallSeconds", "generationSeconds"] as const) {
    const value = timing[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new ForestInputError({
        path: `timing.${key}`,
        reason: `must be a non-negative number of seconds, got ${value}`,
      });
    }
    out[key] = value;
  }
  return out;
}

/** Checks metadata is JSON and returns a private copy. */
export function checkMetadata(
  metadata: Record<string, unknown> | undefined,
  path: string,
): Record<string, unknown> | undefined {
  if (metadata === undefined) return undefined;
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) {
    throw new ForestInputError({ path, reason: "must be a JSON object" });
  }
  try {
    stableStringify(metadata, path);
  } catch (error) {
    throw new ForestInputError({ path, reason: (error as Error).message });
  }
  return JSON.parse(JSON.stringify(metadata)) as Record<string, unknown>;
}

/** A validated, privately copied {@link CommitResponseInput}. */
export interface CheckedCommit {
  message: AssistantMessage;
  finishReason: ResponseFinishReason;
  tokens: Int32Array;
  logprobs: LogprobArray;
  weightVersionSpans: WeightVersionSpan[];
  timing?: TurnTiming;
  metadata?: Record<string, unknown>;
}

/**
 * Validates what the engine returned for a turn and copies it into compact storage.
 * @throws ForestInputError naming the field.
 */
export function checkCommitInput(input: CommitResponseInput): CheckedCommit {
  if (input === null || typeof input !== "object") {
    throw new ForestInputError({ path: "input", reason: "must be an object" });
  }
  const message = checkAssistantMessage(input.message);
  const finishReason = checkFinishReason(input.finishReason);
  if (input.outputIds === undefined || input.outputIds === null || input.outputIds.length === 0) {
    throw new ForestInputError({ path: "outputIds", reason: "must hold at least one generated token" });
  }
  const tokens = toTokenArray(input.outputIds, "outputIds");
  if (input.logprobs === undefined || input.logprobs === null) {
    throw new ForestInputError({
      path: "logprobs",
      reason: "is required (one rollout logprob per generated token)",
    });
  }
  const logprobs = toLogprobArray(input.logprobs, tokens.length, "logprobs");
  const weightVersionSpans = resolveWeightSpans({
    weightVersion: input.weightVersion,
    weightVersionSpans: input.weightVersionSpans,
    length: tokens.length,
  });
  const checked: CheckedCommit = { message, finishReason, tokens, logprobs, weightVersionSpans };
  const timing = checkTiming(input.timing);
  if (timing !== undefined) checked.timing = timing;
  const metadata = checkMetadata(input.metadata, "metadata");
  if (metadata !== undefined) checked.metadata = metadata;
  return checked;
}
