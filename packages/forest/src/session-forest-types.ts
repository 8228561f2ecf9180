import type { TokenRenderer } from "@relax/chat";
import type { ObservationNode, ResponseNode } from "./node/forest-node";
import type { TransitionClass } from "./sample/training-sample";

/**
 * How edits of committed responses in a request are treated:
 * - `tolerant` (default): benign edits (dropped reasoning, re-serialised arguments, whitespace, redaction,
 *   empty-content swaps, re-identified tool calls) are mapped back onto the committed response, so the
 *   context stays one trajectory and its tokens stay exactly those generated; each edit is recorded;
 * - `exact`: any difference forks, as in the Python Relax (the edited message becomes observation; see
 *   docs/contract.md#deviations).
 */
export type MatchPolicy = "tolerant" | "exact";

/** Options of {@link SessionForest}. */
export interface SessionForestOptions {
  /** The session this forest records (one dataset sample, one agent process). */
  sessionId: string;
  /** Renders first prompts and observation deltas (`createChatRenderer` from `@relax/chat`). */
  renderer: TokenRenderer;
  /** @default "tolerant" */
  policy?: MatchPolicy;
  /** Maximum context in tokens (prompt plus generation). No limit when absent. */
  maxContextTokens?: number | undefined;
  /** Rollout id shared by every sample of the session. @default sessionId */
  rolloutId?: string;
  /** Free-form JSON metadata kept with the forest (and its snapshots). */
  metadata?: Record<string, unknown> | undefined;
  /**
   * Strings an agent uses to redact values, for the tolerant policy. Runs of 3+ `*` always count.
   * @default DEFAULT_REDACTION_MARKERS
   */
  redactionMarkers?: readonly string[];
}

/** Options of {@link SessionForest.beginTurn}. */
export interface BeginTurnOptions {
  /** The caller's id for the request, kept in the turn trace. */
  requestId?: string;
  /** Requested generation budget; clamped to the room left in the context. */
  maxNewTokens?: number;
  /**
   * Set by a caller that knows this request restarts the context after a compaction (the agent replaced
   * its history with a summary; the gateway's request classes tell it). If the turn starts a new subtree
   * after committed responses (a `reset`, or a `branch` re-rendered from the root), it is recorded as a
   * compaction segment start (`TurnRecord.segment`): the new subtree stays linked to the
   * history it replaces (`resetFrom`) and {@link SessionForest.implicitExportSegments} exports every
   * segment as a sibling context instead of refusing the non-linear history. Ignored for a turn that continues an existing subtree.
   * Without it, such a turn is still a segment start when it switches agent (`TurnRecord.segment` `"agent"`:
   * other leading system messages, tools or kwargs); the forest decides that alone.
   */
  segment?: "compaction";
}

/** Options of {@link SessionForest.implicitExportSegments}. */
export interface ImplicitExportSegmentsOptions {
  /**
   * Whether agent switches (`TurnRecord.segment` `"agent"`) start segments, each trained as a sibling
   * context (docs/contract.md#agent-contexts). `false` treats them as the non-linear resets they are
   * (`nonlinear`), as before agent contexts existed; compaction segments are not affected.
   * @default true
   */
  agentContexts?: boolean;
}

/** Result of {@link SessionForest.commitResponse}. */
export interface CommitResult {
  node: ResponseNode;
  /** `false` when the same state was already committed (an identical re-commit is idempotent). */
  created: boolean;
  /** The turn's final transition class (`append` becomes `branch` when a sibling response already existed). */
  transition: TransitionClass;
}

/** Result of {@link SessionForest.matchExportState}. */
export interface ExportMatch {
  stateHash: string;
  node: ObservationNode | ResponseNode;
  /** Benign edits mapped onto committed responses to find the node (tolerant policy). */
  toleratedEdits: string[];
}

/** Counts and sizes of a forest, for metrics and the bench. */
export interface ForestStats {
  nodes: number;
  observations: number;
  responses: number;
  leaves: number;
  exportableLeaves: number;
  /** Subtrees under the root (distinct initial histories, tools or kwargs; resets). */
  subtrees: number;
  turns: number;
  pendingTurns: number;
  failedTurns: number;
  transitions: Record<TransitionClass, number>;
  toleratedEdits: number;
  observationTokens: number;
  responseTokens: number;
  /**
   * Bytes of token and logprob storage (typed arrays' contents): per node delta 2 per token plus 8 per
   * token id above 65,535 when packing saves at least 64 bytes, else 4 per token (see `ForestNode.tokens`);
   * plus 4 per generated token whose response holds only float32 logprobs (SGLang's), else 8.
   */
  tokenBytes: number;
}
