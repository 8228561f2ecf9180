import type { ChatMessage } from "@relax/chat";
import type { ForestNode, HistoryEdit, SegmentKind, TransitionClass, TurnRecord } from "@relax/forest";

/**
 * What {@link dumpSessionForest} reads from a session's forest: its public `nodes()` and `turns()`.
 * `SessionForest` from `@relax/forest` satisfies it structurally.
 */
export interface DumpableForest {
  nodes(): readonly ForestNode[];
  turns(): readonly TurnRecord[];
}

/** One session of a dumped Group, with the forest the session built (input of the debug dump). */
export interface DebugDumpSessionInput {
  sessionId: string;
  forest: DumpableForest;
  /**
   * Forests of the session's requests kept but not trained, by request class (`title`, `compaction`, …;
   * the gateway's `record` policy). Dumped under `side_forests`; never exported.
   */
  sideForests?: ReadonlyMap<string, DumpableForest>;
}

/** One committed node of a dumped forest (the technical root is left out; its children name it as parent). */
export interface DebugDumpForestNode {
  state_hash: string;
  /** Parent state hash; the forest's root hash for a subtree's first observation. */
  parent_state_hash: string;
  kind: "observation" | "response";
  /** Turn that created (observation) or committed (response) the node. */
  turn_id: number;
  /** Tokens this node adds to its lineage. */
  token_count: number;
  /** Tokens on the lineage before this node. */
  prefix_tokens: number;
  /** Observation: the messages the node adds. Response: the one assistant message. */
  messages: ChatMessage[];
  /** Response only: the engine's finish reason. */
  finish_reason?: "stop" | "length" | "abort";
  /** Observation only: the state the session had reached before this subtree (reset / compaction link). */
  reset_from?: string;
  /** Observation only: the sibling observation that replaced this one before any response. */
  superseded_by?: string;
  /** Observation only: why the last generation from it failed. */
  failure?: string;
  /** Context names this node was exported as (`null` for an implicit export); empty when not exported. */
  exported_as: (string | null)[];
}

/** One turn (request) of a dumped forest: how it related to committed history. */
export interface DebugDumpForestTurn {
  turn_id: number;
  request_id?: string;
  transition: TransitionClass;
  linear: boolean;
  /**
   * Set when the turn started a segment exported as a sibling context: `"compaction"` (a restart after a
   * compaction) or `"agent"` (an agent switch; docs/contract.md#agent-contexts).
   */
  segment?: SegmentKind;
  /** Tolerated benign edits as `"<kind>@<path>"`. */
  tolerated_edits: string[];
  /** Every edit of committed responses found in the request, tolerated or not. */
  edits: HistoryEdit[];
  parent_state_hash: string;
  observation_state_hash: string;
  response_state_hash?: string;
  status: "pending" | "committed" | "failed";
  failure?: string;
  request_messages: number;
  matched_messages: number;
  prompt_tokens: number;
}

/** The optional `forest` section of a dumped session: every committed node and every turn. */
export interface DebugDumpForest {
  root_state_hash: string;
  nodes: DebugDumpForestNode[];
  turns: DebugDumpForestTurn[];
}

/** One session of a dumped Group (present when the caller passes `sessions` to the dump). */
export interface DebugDumpSession {
  session_id: string;
  /** Position in the sampled Group. */
  slot: number;
  forest: DebugDumpForest;
  /** Recorded, untrained requests by request class (see {@link DebugDumpSessionInput.sideForests}). */
  side_forests?: Record<string, DebugDumpForest>;
}

/**
 * Summarises a session's forest for the debug dump: nodes in commit order (without token ids — the
 * exported samples carry those), the turn log, and which nodes were exported as which context.
 */
export function dumpSessionForest(
  forest: DumpableForest,
  exportedAs: ReadonlyMap<string, (string | null)[]>,
): DebugDumpForest {
  const all = forest.nodes();
  const root = all.find((node) => node.kind === "root");
  const nodes: DebugDumpForestNode[] = [];
  for (const node of all) {
    if (node.kind === "root") continue;
    const base = {
      state_hash: node.stateHash,
      parent_state_hash: node.parentStateHash ?? "",
      kind: node.kind,
      turn_id: node.turnId,
      token_count: node.tokens.length,
      prefix_tokens: node.prefixTokens,
    };
    const exported_as = exportedAs.get(node.stateHash) ?? [];
    if (node.kind === "response") {
      nodes.push({
        ...base,
        messages: [node.message as ChatMessage],
        finish_reason: node.finishReason,
        exported_as,
      });
    } else {
      nodes.push({
        ...base,
        messages: [...node.messages],
        ...(node.resetFrom !== undefined && { reset_from: node.resetFrom }),
        ...(node.supersededBy !== undefined && { superseded_by: node.supersededBy }),
        ...(node.failure !== undefined && { failure: node.failure }),
        exported_as,
      });
    }
  }
  const turns = forest.turns().map(
    (turn): DebugDumpForestTurn => ({
      turn_id: turn.turnId,
      ...(turn.requestId !== undefined && { request_id: turn.requestId }),
      transition: turn.transition,
      linear: turn.linear,
      ...(turn.segment !== undefined && { segment: turn.segment }),
      tolerated_edits: [...turn.toleratedEdits],
      edits: turn.edits.map((edit) => ({ ...edit })),
      parent_state_hash: turn.parentStateHash,
      observation_state_hash: turn.observationStateHash,
      ...(turn.responseStateHash !== undefined && { response_state_hash: turn.responseStateHash }),
      status: turn.status,
      ...(turn.failure !== undefined && { failure: turn.failure }),
      request_messages: turn.requestMessages,
      matched_messages: turn.matchedMessages,
      prompt_tokens: turn.promptTokens,
    }),
  );
  return { root_state_hash: root?.stateHash ?? "", nodes, turns };
}
