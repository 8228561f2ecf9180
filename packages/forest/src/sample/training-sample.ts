import type { MediaItem } from "@relax/chat";

/**
 * Terminal status of a sample, following slime's `Sample.Status`: `completed` (the leaf response
 * stopped normally), `truncated` (length limit, or the exported node is an observation), `aborted`
 * (the engine aborted the last generation), `failed` (the turn failed).
 */
export type SampleStatus = "completed" | "truncated" | "aborted" | "failed";

/** How a request related to the committed history (see docs/contract.md#sessionforest). */
export type TransitionClass = "append" | "branch" | "drift" | "reset";

/**
 * Why a turn started a new segment of the session (see docs/contract.md#agent-contexts):
 * - `compaction`: the caller said the request restarts the context after a compaction
 *   (`BeginTurnOptions.segment`);
 * - `agent`: the new subtree has other leading system messages, tools or chat-template kwargs than the
 *   subtree the session was in: another agent (a handoff, a structured-output call without tools).
 */
export type SegmentKind = "compaction" | "agent";

/** A span of response tokens generated under one weight version: `[start, end)` in response coordinates. */
export interface WeightVersionSpan {
  version: string;
  start: number;
  end: number;
}

/** One turn (one response node) on a sample's lineage, for the debug trace and metrics. */
export interface TurnTrace {
  turnIndex: number;
  /** State hash of the response node. */
  stateHash: string;
  /** State hash of the node the request continued (its committed prefix). */
  parentStateHash: string;
  transition: TransitionClass;
  /** Benign edits the tolerant policy mapped back onto committed responses (empty when none). */
  toleratedEdits: string[];
  /** Engine finish reason: `stop`, `length` or `abort`. */
  finishReason: "stop" | "length" | "abort";
  /** `[start, end)` of this turn's generated tokens in response coordinates. */
  responseSpan: [number, number];
  /** Observation tokens that preceded this turn's generation (0 for the first turn). */
  observationTokens: number;
  weightVersion?: string;
  requestId?: string;
  /** Wall time of the request in seconds, and the part spent in the engine. */
  wallSeconds?: number;
  generationSeconds?: number;
  /** Session-wide turn id (`TurnRecord.turnId`) of the request that generated this response. */
  turnId?: number;
  /** Free-form JSON given with the response at commit (engine counters, routing info). */
  metadata?: Record<string, unknown>;
}

/**
 * One training sample built from a committed node: the whole token lineage from the root, with the
 * loss mask and rollout logprobs aligned to the response part (everything from the first generated
 * token on), as slime / Relax trainers expect.
 *
 * Invariants: `tokens.length === promptLength + responseLength`; `lossMask.length ===
 * rolloutLogProbs.length === responseLength`; `lossMask[i] === 1` exactly where the token was generated
 * by the engine; `rolloutLogProbs[i] === 0` where `lossMask[i] === 0`.
 */
export interface TrainingSample {
  sessionId: string;
  /** Shared by every sample exported from the same session (sibling contexts). */
  rolloutId: string;
  /** State hash of the exported node. */
  stateHash: string;
  tokens: number[];
  promptLength: number;
  responseLength: number;
  lossMask: number[];
  rolloutLogProbs: number[];
  status: SampleStatus;
  /** Distinct weight versions on the lineage, in order of first use. */
  weightVersions: string[];
  weightVersionSpans: WeightVersionSpan[];
  turnCount: number;
  turns: TurnTrace[];
  /**
   * State hash of the subtree's first observation (the segment's root). Samples of one context share it.
   */
  segmentStateHash?: string;
  /**
   * When this segment (subtree) began after the session already had responses — a `reset` such as
   * compaction (history replaced by a summary) — the state the session had reached before it, linking the
   * segment to the history it replaced.
   */
  resetFrom?: string;
  /**
   * How this segment began, when it began as a segment that implicit export trains as a sibling context
   * (`TurnRecord.segment` of the turn that started it): `"compaction"` (a restart after a compaction) or
   * `"agent"` (an agent switch: other leading system messages, tools or kwargs; see
   * docs/contract.md#agent-contexts). Absent for a session's first segment and for a plain `reset`.
   */
  segmentStart?: SegmentKind;
  /**
   * The images of the lineage in prompt order, merged from the observations that added them: one entry per
   * expanded image-pad run in `tokens`. Absent for text-only samples. `tokens` are training ids (each image
   * at its processor-expanded length), not the inference ids sent to the engine.
   */
  multimodalTrainInputs?: MediaItem[];
}
