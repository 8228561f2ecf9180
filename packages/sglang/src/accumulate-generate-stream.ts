import { SglangResponseError } from "./errors/sglang-response-error";
import type { GenerateResult } from "./generate-result";
import { assembleGenerateResult, type ParseGenerateResponseContext } from "./parse-generate-response";
import type { GenerateMetaInfoWire, GenerateResponseWire, LogprobTripleWire } from "./sglang-api";

/** New tokens carried by one stream chunk. */
export interface GenerateStreamDelta {
  outputIds: number[];
  outputLogprobs: number[];
}

/**
 * Folds SGLang `/generate` stream chunks into the exact output, whatever the server's streaming mode:
 * - default (cumulative): each chunk's `output_ids` and `output_token_logprobs` hold everything so far;
 * - `--incremental-streaming-output` (older `--stream-output`): each chunk holds only the new part;
 * - the mixed hazard of some 0.4.x/0.5.x builds (delta ids, cumulative lists, or the reverse).
 *
 * The mode is decided per chunk and per list: ids are cumulative when `len(output_ids) ==
 * meta_info.completion_tokens` (or, without that field, when they extend what was seen); logprobs are
 * cumulative when their count equals the total so far. Anything else that does not line up is a
 * `SglangResponseError`.
 *
 * @see the reference notes on SGLang streaming (`tokenizer_manager.py`, `--incremental-streaming-output`).
 */
export class GenerateStreamAccumulator {
  readonly #context: ParseGenerateResponseContext;
  readonly #ids: number[] = [];
  readonly #logprobs: number[] = [];
  #chunks = 0;
  #lastMeta: GenerateMetaInfoWire | undefined;

  constructor(context: ParseGenerateResponseContext) {
    this.#context = context;
  }

  /** Whether the last chunk carried a `finish_reason`. */
  get finished(): boolean {
    return this.#lastMeta?.finish_reason != null;
  }

  /** Adds one chunk; returns the tokens it added. */
  push(chunk: GenerateResponseWire): GenerateStreamDelta {
    const index = this.#chunks++;
    const meta = chunk.meta_info;
    this.#lastMeta = meta;
    const triples = meta.output_token_logprobs ?? undefined;
    const chunkIds = chunk.output_ids ?? (triples ? triples.map((triple) => triple[1]) : []);
    const seen = this.#ids.length;
    const newIds = this.#newIds(chunkIds, meta.completion_tokens ?? undefined, index);
    const total = seen + newIds.length;
    const newLogprobs = this.#newLogprobs(triples, newIds, seen, total, index);
    for (const id of newIds) this.#ids.push(id);
    for (const logprob of newLogprobs) this.#logprobs.push(logprob);
    return { outputIds: newIds, outputLogprobs: newLogprobs };
  }

  /** The final result; requires a chunk with `finish_reason`. */
  result({ latencyMs }: { latencyMs: number }): GenerateResult {
    if (!this.#lastMeta || this.#lastMeta.finish_reason == null) {
      throw this.#error("(stream)", "the stream ended before a chunk with meta_info.finish_reason");
    }
    const returnLogprob = this.#context.returnLogprob ?? true;
    if (returnLogprob && this.#logprobs.length !== this.#ids.length) {
      throw this.#error(
        "meta_info.output_token_logprobs",
        `the stream carried ${this.#logprobs.length} logprobs for ${this.#ids.length} output ids`,
      );
    }
    return assembleGenerateResult({
      meta: this.#lastMeta,
      outputIds: [...this.#ids],
      outputLogprobs: returnLogprob ? [...this.#logprobs] : [],
      context: { ...this.#context, latencyMs },
    });
  }

  #newIds(chunkIds: number[], completionTokens: number | undefined, index: number): number[] {
    const seen = this.#ids.length;
    let cumulative: boolean;
    if (completionTokens !== undefined)
      cumulative = chunkIds.length === completionTokens && completionTokens >= seen;
    else cumulative = chunkIds.length >= seen && this.#extendsSeen(chunkIds);
    if (!cumulative) return chunkIds;
    if (!this.#extendsSeen(chunkIds)) {
      throw this.#error(
        `chunk ${index}: output_ids`,
        "a cumulative chunk does not extend the ids seen so far",
      );
    }
    return chunkIds.slice(seen);
  }

  #extendsSeen(chunkIds: number[]): boolean {
    for (let position = 0; position < this.#ids.length; position++) {
      if (chunkIds[position] !== this.#ids[position]) return false;
    }
    return true;
  }

  #newLogprobs(
    triples: LogprobTripleWire[] | undefined,
    newIds: number[],
    seen: number,
    total: number,
    index: number,
  ): number[] {
    if (triples == null || triples.length === 0) {
      if (newIds.length > 0 && (this.#context.returnLogprob ?? true) && triples != null) {
        throw this.#error(
          `chunk ${index}: meta_info.output_token_logprobs`,
          "empty while the chunk adds ids",
        );
      }
      return [];
    }
    let fresh: LogprobTripleWire[];
    if (triples.length === total && total !== newIds.length) fresh = triples.slice(seen);
    else if (triples.length === newIds.length) fresh = triples;
    else {
      throw this.#error(
        `chunk ${index}: meta_info.output_token_logprobs`,
        `has ${triples.length} entries, matching neither the ${newIds.length} new ids nor the ${total} ids so far`,
      );
    }
    const logprobs = new Array<number>(fresh.length);
    for (let offset = 0; offset < fresh.length; offset++) {
      const triple = fresh[offset]!;
      if (triple[1] !== newIds[offset]) {
        throw this.#error(
          `chunk ${index}: meta_info.output_token_logprobs`,
          `token id ${triple[1]} at output position ${seen + offset} differs from output id ${newIds[offset]}`,
        );
      }
      if (triple[0] == null) {
        throw this.#error(
          `chunk ${index}: meta_info.output_token_logprobs`,
          `null logprob at position ${seen + offset}`,
        );
      }
      logprobs[offset] = triple[0];
    }
    return logprobs;
  }

  #error(path: string, reason: string): SglangResponseError {
    return new SglangResponseError({ url: this.#context.url, rid: this.#context.rid, path, reason });
  }
}
