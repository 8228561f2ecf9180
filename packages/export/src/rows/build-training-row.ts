import { decodeDataUri, type MediaItem } from "@relax/chat";
import type { SegmentKind, TrainingSample } from "@relax/forest";
import type { RewardSource } from "../reward/reward-source";
import type { TrainingRow } from "./training-row";
import type { AlignedTurnRewards } from "./turn-rewards";

/** Options of {@link buildTrainingRow}. */
export interface BuildTrainingRowOptions {
  sample: TrainingSample;
  groupIndex: number;
  /** Index of the Group's prompt in its dataset (0-based line). */
  promptIndex: number;
  /** Position of the session in its Group (0 … n-1). */
  sampleIndex: number;
  /** Record name, `null` for an implicit export. */
  contextName: string | null;
  /** Export metadata (copied into the row by reference; pass a copy you do not mutate). */
  metadata: Record<string, unknown>;
  /** Primary reward, `null` when the context has none. */
  reward: number | null;
  /** Helper fields of a reward object. @default {} */
  rewardDetails?: Record<string, number>;
  /** Where `reward` came from; written as the row's `reward_source` when given. */
  rewardSource?: RewardSource | undefined;
  /** Scalar base credit; broadcast over the loss mask. */
  advantage: number;
  /** Put `data:` image bytes into `multimodal_train_inputs` as `data` instead of `source`. @default false */
  inlineImageBytes?: boolean;
  /** A side context's request class (row `request_class`); absent for a main context. */
  requestClass?: string;
  /** A side context's parent turn (row `parent_state_hash`). */
  parentStateHash?: string;
  /** Per-turn rewards aligned to the sample's turns (rows' `turn_rewards`, `turn_reward_positions`). */
  turnRewards?: AlignedTurnRewards;
  /**
   * The kind of segment of an implicit export split into several (row `segment_kind`): `compaction` or
   * `agent` (docs/contract.md#agent-contexts); absent for a context that is not such a segment.
   */
  segmentKind?: SegmentKind;
}

/**
 * Builds the wire row of one exported context from its forest sample. The per-token `advantages` are
 * `advantage` where `loss_mask` is 1 and 0 elsewhere (observation tokens get no credit). The sample's
 * arrays are shared, not copied.
 *
 * @throws RangeError when the sample breaks its own invariants (array lengths) or `advantage` is not finite.
 */
export function buildTrainingRow(options: BuildTrainingRowOptions): TrainingRow {
  const {
    sample,
    groupIndex,
    promptIndex,
    sampleIndex,
    contextName,
    metadata,
    reward,
    rewardDetails = {},
    rewardSource,
    advantage,
    inlineImageBytes = false,
    requestClass,
    parentStateHash,
    turnRewards,
    segmentKind,
  } = options;
  const { tokens, lossMask, rolloutLogProbs, promptLength, responseLength } = sample;
  if (!Number.isFinite(advantage)) throw new RangeError(`advantage must be finite, got ${advantage}`);
  if (tokens.length !== promptLength + responseLength) {
    throw new RangeError(
      `sample ${sample.stateHash}: tokens has ${tokens.length} entries, expected ${promptLength} + ${responseLength}`,
    );
  }
  if (lossMask.length !== responseLength || rolloutLogProbs.length !== responseLength) {
    throw new RangeError(
      `sample ${sample.stateHash}: loss_mask (${lossMask.length}) and rollout_log_probs (${rolloutLogProbs.length}) ` +
        `must have response_length = ${responseLength} entries`,
    );
  }
  const advantages = new Array<number>(responseLength);
  for (let i = 0; i < responseLength; i++) advantages[i] = lossMask[i] === 1 ? advantage : 0;
  return {
    tokens,
    loss_mask: lossMask,
    rollout_log_probs: rolloutLogProbs,
    advantage,
    advantages,
    reward,
    reward_details: rewardDetails,
    response_length: responseLength,
    prompt_length: promptLength,
    status: sample.status,
    weight_versions: sample.weightVersions,
    weight_version_spans: sample.weightVersionSpans,
    abort_count: abortCountOf(sample),
    rollout_id: sample.rolloutId,
    group_index: groupIndex,
    prompt_index: promptIndex,
    sample_index: sampleIndex,
    session_id: sample.sessionId,
    context_name: contextName,
    state_hash: sample.stateHash,
    num_turns: sample.turnCount,
    stop_reason: stopReasonOf({ sample, metadata }),
    metadata,
    request_kinds: requestKindsOf(sample),
    ...(requestClass !== undefined ? { request_class: requestClass } : {}),
    ...(parentStateHash !== undefined ? { parent_state_hash: parentStateHash } : {}),
    ...(turnRewards !== undefined
      ? { turn_rewards: turnRewards.values, turn_reward_positions: turnRewards.positions }
      : {}),
    ...(rewardSource !== undefined && { reward_source: rewardSource }),
    ...(segmentKind !== undefined && { segment_kind: segmentKind }),
    ...multimodalTrainInputsOf(sample, inlineImageBytes),
  };
}

/**
 * `{ multimodal_train_inputs }` of a sample with images (one entry per image, in token order, as the row
 * writes them), or `{}` for a text sample. Shared by the rows and the debug dump.
 */
export function multimodalTrainInputsOf(
  sample: Pick<TrainingSample, "multimodalTrainInputs">,
  inlineImageBytes: boolean,
): Pick<TrainingRow, "multimodal_train_inputs"> {
  const items = sample.multimodalTrainInputs;
  if (items === undefined || items.length === 0) return {};
  return { multimodal_train_inputs: items.map((item) => trainInput(item, inlineImageBytes)) };
}

/** The row form of one image: wire spelling, sizes as `{height, width}`, source or inline bytes. */
function trainInput(
  item: MediaItem,
  inline: boolean,
): NonNullable<TrainingRow["multimodal_train_inputs"]>[number] {
  const payload = inline ? decodeDataUri(item.url) : undefined;
  return {
    type: "image",
    digest: item.digest,
    ...(payload !== undefined
      ? { data: Buffer.from(payload.bytes).toString("base64") }
      : { source: item.url }),
    format: item.format,
    original_size: { height: item.height, width: item.width },
    resized_size: { height: item.resizedHeight, width: item.resizedWidth },
    image_grid_thw: [...item.gridThw],
    num_tokens: item.tokens,
  };
}

/**
 * How many times a turn on the sample's lineage was aborted by a pause and continued: the sum of the
 * `abortCount` the gateway writes into each committed turn's metadata (absent counts as 0).
 */
export function abortCountOf(sample: TrainingSample): number {
  let total = 0;
  for (const turn of sample.turns) {
    const count = turn.metadata?.abortCount;
    if (typeof count === "number" && Number.isInteger(count) && count > 0) total += count;
  }
  return total;
}

/**
 * The request kind of each response turn on the sample's lineage, from the `requestKind` the gateway
 * writes into each committed turn's metadata (`fresh` when absent or unknown).
 */
export function requestKindsOf(sample: TrainingSample): Array<"fresh" | "resumed" | "protected"> {
  return sample.turns.map((turn) => {
    const kind = turn.metadata?.requestKind;
    return kind === "resumed" || kind === "protected" ? kind : "fresh";
  });
}

/**
 * The stop reason logged for a context: a string `stop_reason` or `rollout_stop_reason` in the export
 * metadata, else the last turn's finish reason, else the sample status (see docs/contract.md#metrics).
 */
export function stopReasonOf({
  sample,
  metadata,
}: {
  sample: TrainingSample;
  metadata: Record<string, unknown>;
}): string {
  for (const key of ["stop_reason", "rollout_stop_reason"]) {
    const value = metadata[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return sample.turns.at(-1)?.finishReason ?? sample.status;
}
