import type { TextTokenizer } from "@relax/chat";
import type { StandinJob } from "./standin-scheduler";

/** Per-request output options read from the `/generate` body. */
export interface ResponseShape {
  returnLogprob: boolean;
  /** `-1`: no prompt logprobs. */
  logprobStartLen: number;
  returnTextInLogprobs: boolean;
  skipSpecialTokens: boolean;
  noStopTrim: boolean;
  /** Include `meta_info.weight_versions` spans (newer SGLang builds). */
  weightVersionSpans: boolean;
}

/** The slice of the output a chunk carries (`from` = first output position; 0 for cumulative). */
export interface ChunkRange {
  from: number;
  /** Text already sent, for incremental text deltas. */
  textFrom: number;
}

/**
 * Builds SGLang's `/generate` body `{text, output_ids, meta_info}` for a job (a final response, or one
 * stream chunk). Field names follow SGLang's `tokenizer_manager.py` output dict.
 */
export function buildGenerateResponse({
  job,
  tokenizer,
  shape,
  weightVersion,
  promptLogprobs,
  final,
  range = { from: 0, textFrom: 0 },
}: {
  job: StandinJob;
  tokenizer: TextTokenizer;
  shape: ResponseShape;
  weightVersion: string;
  promptLogprobs: () => [number | null, number, string | null][];
  final: boolean;
  range?: ChunkRange;
}): { body: Record<string, unknown>; text: string } {
  const finish = final ? (job.finishReason ?? null) : null;
  let textIds = job.outputIds;
  if (final && finish?.type === "stop" && !shape.noStopTrim && typeof finish.matched === "number") {
    if (textIds[textIds.length - 1] === finish.matched) textIds = textIds.slice(0, -1);
  }
  let text =
    textIds.length === 0 ? "" : tokenizer.decode(textIds, { skipSpecialTokens: shape.skipSpecialTokens });
  if (final && finish?.type === "stop" && !shape.noStopTrim && typeof finish.matched === "string") {
    const position = text.indexOf(finish.matched);
    if (position >= 0) text = text.slice(0, position);
  }
  const meta: Record<string, unknown> = {
    id: job.rid,
    finish_reason: finish,
    prompt_tokens: job.promptTokens ?? job.inputIds.length,
    completion_tokens: job.outputIds.length,
    cached_tokens: job.cachedTokens,
    weight_version: weightVersion,
  };
  // Newer SGLang builds report how often a request was retracted; the stand-in adds it only when it was.
  if (job.retractions) meta.num_retractions = job.retractions;
  if (shape.returnLogprob) {
    meta.input_token_logprobs = range.from === 0 && shape.logprobStartLen >= 0 ? promptLogprobs() : [];
    meta.output_token_logprobs = job.outputIds
      .slice(range.from)
      .map((id, offset) => [
        job.outputLogprobs[range.from + offset]!,
        id,
        shape.returnTextInLogprobs ? tokenizer.decode([id], { skipSpecialTokens: false }) : null,
      ]);
  }
  if (shape.weightVersionSpans && final) meta.weight_versions = versionSpans(job.tokenVersions);
  if (final) meta.e2e_latency = Math.round(performance.now() - job.receivedAt) / 1000;
  return {
    body: { text: text.slice(range.textFrom), output_ids: job.outputIds.slice(range.from), meta_info: meta },
    text,
  };
}

function versionSpans(versions: string[]): { version: string; start: number; end: number }[] {
  const spans: { version: string; start: number; end: number }[] = [];
  versions.forEach((version, position) => {
    const last = spans[spans.length - 1];
    if (last && last.version === version) last.end = position + 1;
    else spans.push({ version, start: position, end: position + 1 });
  });
  return spans;
}
