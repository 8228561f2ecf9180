import type { MediaItem } from "@relax/chat";
import { NoResponseError } from "./errors/no-response-error";
import { trainLength, trainTokensOf } from "./node/collect-prefix";
import type { InternalNode, ResponseFinishReason } from "./node/forest-node";
import type {
  SampleStatus,
  SegmentKind,
  TrainingSample,
  TurnTrace,
  WeightVersionSpan,
} from "./sample/training-sample";
import type { TurnRecord } from "./turn/turn-record";

function statusOf(leaf: InternalNode): SampleStatus {
  if (leaf.kind === "observation") return leaf.failure !== undefined ? "failed" : "truncated";
  const reason = (leaf as { finishReason: ResponseFinishReason }).finishReason;
  switch (reason) {
    case "stop":
      return "completed";
    case "length":
      return "truncated";
    case "abort":
      return "aborted";
    default:
      throw new Error(`unknown finish reason ${String(reason)}`);
  }
}

/**
 * Builds the {@link TrainingSample} of the last node of `lineage` (root first), following the Python
 * Relax `SessionForest.build_sample`: the prompt is every observation before the first response; the
 * response part is everything from the first response on, with `lossMask` 1 and the rollout logprob on
 * generated tokens and 0 on later observations.
 *
 * @throws NoResponseError when the lineage holds no response.
 */
export function buildTrainingSample(options: {
  sessionId: string;
  rolloutId: string;
  lineage: readonly InternalNode[];
  turns: readonly TurnRecord[];
  /** How the lineage's segment began (`TurnRecord.segment` of its start), when it began as a segment. */
  segmentStart?: SegmentKind;
}): TrainingSample {
  const { sessionId, rolloutId, lineage, turns, segmentStart } = options;
  const leaf = lineage[lineage.length - 1]!;
  const first = lineage.findIndex((node) => node.kind === "response");
  if (first < 0) throw new NoResponseError({ stateHash: leaf.stateHash, sessionId });

  // Training coordinates: images count at their processor-expanded length.
  const total = leaf.prefixTrainTokens + trainLength(leaf);
  const promptLength = lineage[first]!.prefixTrainTokens;
  const media: MediaItem[] = [];
  const responseLength = total - promptLength;
  const tokens = new Array<number>(total);
  const lossMask = new Array<number>(responseLength).fill(0);
  const rolloutLogProbs = new Array<number>(responseLength).fill(0);
  const weightVersionSpans: WeightVersionSpan[] = [];
  const weightVersions: string[] = [];
  const traces: TurnTrace[] = [];

  let position = 0;
  let observationTokens = 0;
  for (const node of lineage) {
    const delta = trainTokensOf(node);
    for (let i = 0; i < delta.length; i++) tokens[position + i] = delta[i]!;
    if (node.kind === "observation" && node.media !== undefined) media.push(...structuredClone(node.media));
    const offset = position - promptLength;
    position += delta.length;
    if (node.kind === "observation") {
      if (offset >= 0) observationTokens += delta.length;
      continue;
    }
    if (node.kind !== "response") continue;
    const logprobs = node.logprobs;
    for (let i = 0; i < delta.length; i++) {
      lossMask[offset + i] = 1;
      rolloutLogProbs[offset + i] = logprobs[i]!;
    }
    for (const span of node.weightVersionSpans) {
      if (!weightVersions.includes(span.version)) weightVersions.push(span.version);
      const last = weightVersionSpans[weightVersionSpans.length - 1];
      if (last !== undefined && last.version === span.version && last.end === offset + span.start) {
        last.end = offset + span.end;
      } else {
        weightVersionSpans.push({
          version: span.version,
          start: offset + span.start,
          end: offset + span.end,
        });
      }
    }
    const turn = turns[node.turnId];
    const trace: TurnTrace = {
      turnIndex: traces.length,
      stateHash: node.stateHash,
      parentStateHash: turn?.parentStateHash ?? (node.parentStateHash as string),
      transition: turn?.transition ?? "append",
      toleratedEdits: [...(turn?.toleratedEdits ?? [])],
      finishReason: node.finishReason,
      responseSpan: [offset, offset + delta.length],
      observationTokens,
      turnId: node.turnId,
    };
    const version = node.weightVersionSpans[node.weightVersionSpans.length - 1]?.version;
    if (version !== undefined) trace.weightVersion = version;
    if (turn?.requestId !== undefined) trace.requestId = turn.requestId;
    if (node.timing?.wallSeconds !== undefined) trace.wallSeconds = node.timing.wallSeconds;
    if (node.timing?.generationSeconds !== undefined) trace.generationSeconds = node.timing.generationSeconds;
    if (node.metadata !== undefined)
      trace.metadata = structuredClone(node.metadata) as Record<string, unknown>;
    traces.push(trace);
    observationTokens = 0;
  }

  const segment = lineage[1]!;
  const sample: TrainingSample = {
    sessionId,
    rolloutId,
    stateHash: leaf.stateHash,
    tokens,
    promptLength,
    responseLength,
    lossMask,
    rolloutLogProbs,
    status: statusOf(leaf),
    weightVersions,
    weightVersionSpans,
    turnCount: traces.length,
    turns: traces,
    segmentStateHash: segment.stateHash,
  };
  if (segment.kind === "observation" && segment.resetFrom !== undefined) sample.resetFrom = segment.resetFrom;
  if (segmentStart !== undefined) sample.segmentStart = segmentStart;
  if (media.length > 0) sample.multimodalTrainInputs = media;
  return sample;
}
