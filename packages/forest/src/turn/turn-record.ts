import type { HistoryEdit } from "../drift/history-edit";
import type { SegmentKind, TransitionClass } from "../sample/training-sample";

/** Lifecycle of a turn: begun (observation committed), response committed, or failed before a response. */
export type TurnStatus = "pending" | "committed" | "failed";

/**
 * What the forest recorded about one request (`beginTurn`), and what became of it. Kept for every turn,
 * committed or not, in the session's turn log (`SessionForest.turns()`) and in snapshots.
 */
export interface TurnRecord {
  /** Sequential id within the session, from 0. */
  readonly turnId: number;
  /** The caller's request id, if given. */
  readonly requestId?: string;
  /**
   * Deepest committed state the request continued: its longest committed prefix (after tolerated edits),
   * or the technical root's hash when nothing matched.
   */
  readonly parentStateHash: string;
  /** The observation node generation continues from (new, or an existing one on a full match). */
  readonly observationStateHash: string;
  /** Whether this turn committed a new observation node. */
  readonly observationCreated: boolean;
  /** Messages in the request. */
  readonly requestMessages: number;
  /** Leading request messages covered by committed history. */
  readonly matchedMessages: number;
  /**
   * How the request related to committed history (see docs/contract.md#sessionforest):
   * - `append`: it extends the context it continued without creating a sibling (the first request of a
   *   session, a new observation after a response leaf, a retry after a failed generation);
   * - `branch`: it forks from an earlier state (a sibling observation or a second generation from one state);
   * - `drift`: it edited committed responses; benign edits tolerated (linear) or, under the `exact` policy or
   *   for real rewrites, forked;
   * - `reset`: nothing matched although the session already had history (compaction, new tools or kwargs):
   *   a new subtree, linked to the previous segment through `resetFrom`.
   * A turn begun as `append` becomes `branch` if, at commit, its observation already had another response.
   */
  readonly transition: TransitionClass;
  /** Whether the turn kept the session's history one context (implicit export requires it of every turn). */
  readonly linear: boolean;
  /**
   * Set when this turn started a new subtree after the session had responses and the start is a segment
   * that implicit export trains as a sibling context ({@link SegmentKind}): `"compaction"` when the caller
   * marked the request as a restart after a compaction (`BeginTurnOptions.segment`; it wins), else
   * `"agent"` when the new subtree's leading system messages, tools or chat-template kwargs differ from
   * those of the subtree the session was in (an agent switch). Absent for every other turn, a plain
   * `reset` (the app rewrote its history under the same system prompt and tools) included.
   */
  readonly segment?: SegmentKind;
  /** Benign edits mapped onto committed responses, as `"<kind>@<path>"` (empty unless tolerated). */
  readonly toleratedEdits: readonly string[];
  /** Every edit of committed responses found in the request, tolerated or not. */
  readonly edits: readonly HistoryEdit[];
  /** Tokens of the prompt sent to the engine (the whole lineage up to the observation). */
  readonly promptTokens: number;
  /**
   * Training tokens of the same prompt (images at their processor-expanded length); the context limit
   * applies to it. Equal to `promptTokens` without images.
   */
  readonly trainPromptTokens: number;
  /** Tokens the new observation added (0 on a full match). */
  readonly observationTokens: number;
  /** Generation budget after clamping to the context limit, if any. */
  readonly maxNewTokens?: number;
  readonly status: TurnStatus;
  /** The response node the turn committed (or de-duplicated into). */
  readonly responseStateHash?: string;
  /** Failure reason given to `failTurn`. */
  readonly failure?: string;
  /**
   * The turn whose committed response answered this request again (`commitReplay`): an identical request
   * (a client retry), answered without generating.
   */
  readonly replayOf?: number;
}

/**
 * The plan `beginTurn` returns: the turn record at that moment plus the token prefix to send. Pass it back
 * to `commitResponse` or `failTurn`.
 */
export interface TurnPlan extends TurnRecord {
  /**
   * The full token prefix to send to the engine as `input_ids` (lineage tokens up to and including the
   * observation). Materialised on first read and cached; `promptTokens` gives its length without copying.
   */
  readonly inputIds: number[];
  /**
   * The same ids as {@link TurnPlan.inputIds} in an `Int32Array`, copied node by node with `set` (a memory
   * copy rather than one write per id): what the gateway sends to the engine. Materialised on first read
   * and cached; independent of `inputIds` (reading one does not build the other). Never mutate it.
   */
  readonly inputIdArray: Int32Array;
  /**
   * The images of the lineage, in prompt order (one per image placeholder in `inputIds`), as URLs to send
   * as SGLang `image_data`. Empty for text-only lineages.
   */
  readonly imageData: string[];
}
