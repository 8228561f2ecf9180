import type { ViewDumpSample } from "../input/debug-dump-schema";
import { describeAdvantageSource, describeRewardSource } from "./describe-sources";
import type { ContextImage, ContextView, StripTurn, TreeNodeView } from "./view-model";

/**
 * Places each image on its run of pad tokens: the rows' contract is one `multimodal_train_inputs` entry per
 * run of image-pad tokens, in order, `num_tokens` long. The run is found as the next stretch of exactly
 * `num_tokens` equal ids after the previous image; an image whose run is not found is left out.
 */
function placeImages(
  tokens: readonly number[],
  inputs: NonNullable<BuildContextViewOptions["sample"]["multimodal_train_inputs"]>,
): ContextImage[] {
  const images: ContextImage[] = [];
  let at = 0;
  for (const input of inputs) {
    let start = -1;
    for (let i = at; i < tokens.length && input.num_tokens > 0; ) {
      let j = i;
      while (j < tokens.length && tokens[j] === tokens[i]) j++;
      if (j - i === input.num_tokens) {
        start = i;
        break;
      }
      i = j;
    }
    if (start < 0) continue;
    const image: ContextImage = { start, end: start + input.num_tokens };
    if (input.data !== undefined)
      image.src = `data:image/${input.format === "jpg" ? "jpeg" : (input.format ?? "png")};base64,${input.data}`;
    else if (input.source?.startsWith("data:")) image.src = input.source;
    else if (input.source !== undefined) image.url = input.source;
    if (input.format !== undefined) image.format = input.format;
    if (input.original_size !== undefined) {
      image.width = input.original_size.width;
      image.height = input.original_size.height;
    }
    images.push(image);
    at = image.end;
  }
  return images;
}

/** Options of {@link buildContextView}. */
export interface BuildContextViewOptions {
  id: string;
  step: string;
  sessionKey: string;
  /** The dumped sample (rows read from a rows file are mapped to this shape first). */
  sample: Pick<
    ViewDumpSample,
    | "session_id"
    | "group_index"
    | "context_name"
    | "state_hash"
    | "status"
    | "tokens"
    | "prompt_length"
    | "loss_mask"
    | "rollout_log_probs"
    | "weight_version_spans"
    | "reward"
    | "advantage"
  > & {
    turns?: ViewDumpSample["turns"];
    multimodal_train_inputs?: ViewDumpSample["multimodal_train_inputs"];
    reward_source?: ViewDumpSample["reward_source"];
    advantage_source?: ViewDumpSample["advantage_source"];
  };
  /** The session's forest nodes by state hash, when the dump carried them (adds request / reply per turn). */
  forestNodes?: ReadonlyMap<string, TreeNodeView>;
}

/**
 * One exported row as a token strip in row coordinates: the loss mask and rollout logprobs padded with 0
 * over the prompt so they align 1:1 with `tokens`; weight-version spans and turns (observation delta and
 * generated span) shifted from response to row coordinates (`+ prompt_length`); abort points after every
 * turn the engine aborted. With the forest, each turn also carries its request's new messages and reply.
 */
export function buildContextView(options: BuildContextViewOptions): ContextView {
  const { id, step, sessionKey, sample, forestNodes } = options;
  const offset = sample.prompt_length;
  const pad = new Array<number>(offset).fill(0);
  const turns: StripTurn[] = [];
  let previousEnd = 0;
  for (const trace of sample.turns ?? []) {
    const [start, end] = trace.responseSpan;
    const turn: StripTurn = {
      turnIndex: trace.turnIndex,
      observation: [offset + previousEnd, offset + start],
      generated: [offset + start, offset + end],
      finishReason: trace.finishReason,
      transition: trace.transition,
      toleratedEdits: trace.toleratedEdits,
    };
    if (trace.turnId !== undefined) turn.turnId = trace.turnId;
    if (trace.weightVersion !== undefined) turn.weightVersion = trace.weightVersion;
    const reply = forestNodes?.get(trace.stateHash);
    if (reply !== undefined) {
      turn.reply = reply.messages[0]!;
      const observation = reply.parent === null ? undefined : forestNodes?.get(reply.parent);
      if (observation?.kind === "observation") turn.request = observation.messages;
    }
    turns.push(turn);
    previousEnd = end;
  }
  return {
    id,
    step,
    sessionId: sample.session_id,
    sessionKey,
    groupIndex: sample.group_index,
    name: sample.context_name,
    stateHash: sample.state_hash,
    status: sample.status,
    reward: sample.reward,
    advantage: sample.advantage,
    tokens: sample.tokens,
    promptLength: offset,
    lossMask: [...pad, ...sample.loss_mask],
    logprobs: [...pad, ...sample.rollout_log_probs],
    weightVersionSpans: sample.weight_version_spans.map((span) => ({
      version: span.version,
      start: offset + span.start,
      end: offset + span.end,
    })),
    abortPoints: turns.filter((turn) => turn.finishReason === "abort").map((turn) => turn.generated[1]),
    turns,
    images: placeImages(sample.tokens, sample.multimodal_train_inputs ?? []),
    ...(sample.reward_source !== undefined && { rewardSource: describeRewardSource(sample.reward_source) }),
    ...(sample.advantage_source !== undefined && {
      advantageSource: describeAdvantageSource(sample.advantage_source),
    }),
  };
}
