import type { ViewDumpSession } from "../input/debug-dump-schema";
import { diffHistories } from "./history-diff";
import { viewMessage } from "./view-message";
import type { DiffView, ForestView, TreeNodeView, TurnView } from "./view-model";

/** Options of {@link buildForestView}. */
export interface BuildForestViewOptions {
  /** The dumped session with its `forest` section. */
  session: ViewDumpSession;
  step: string;
  /** Context ids of the session's exported samples, by exported state hash. */
  contextIdsByHash: ReadonlyMap<string, string[]>;
  /** Why the session's Group exported nothing (drop / filter reason), if it did not. */
  groupDropReason?: string;
}

/**
 * The session forest as a tree: every committed node with its depth, children, the transition class and
 * tolerated edits of the turn that produced it, reset links, and for every leaf whether it was exported
 * (as which context) or why not. Also computes a {@link DiffView} of every extra leaf's history against the
 * first leaf's (the first differing message and field), so a false fork can be read side by side.
 */
export function buildForestView(options: BuildForestViewOptions): ForestView {
  const { session, step, contextIdsByHash, groupDropReason } = options;
  const { forest } = session;
  const turnsById = new Map(forest.turns.map((turn) => [turn.turn_id, turn]));
  const byHash = new Map<string, TreeNodeView>();
  const nodes: TreeNodeView[] = [];
  for (const node of forest.nodes) {
    const parent = node.parent_state_hash === forest.root_state_hash ? null : node.parent_state_hash;
    const parentView = parent === null ? undefined : byHash.get(parent);
    const turn = turnsById.get(node.turn_id);
    const view: TreeNodeView = {
      stateHash: node.state_hash,
      parent,
      kind: node.kind,
      turnId: node.turn_id,
      depth: parentView === undefined ? 0 : parentView.depth + 1,
      children: [],
      tokenCount: node.token_count,
      prefixTokens: node.prefix_tokens,
      messages: node.messages.map((message) => viewMessage(message)),
      // The edits belong to the request, shown once: on the observation node it entered through.
      toleratedEdits: node.kind === "observation" ? (turn?.tolerated_edits ?? []) : [],
      leaf: true,
      exportedAs: contextIdsByHash.get(node.state_hash) ?? [],
      exportedNames: node.exported_as,
    };
    if (turn !== undefined) view.transition = turn.transition;
    if (node.finish_reason !== undefined) view.finishReason = node.finish_reason;
    if (node.reset_from !== undefined) view.resetFrom = node.reset_from;
    if (node.superseded_by !== undefined) view.supersededBy = node.superseded_by;
    if (node.failure !== undefined) view.failure = node.failure;
    if (parentView !== undefined) {
      parentView.children.push(view.stateHash);
      parentView.leaf = false;
    }
    byHash.set(view.stateHash, view);
    nodes.push(view);
  }
  for (const node of nodes) {
    if (!node.leaf || node.exportedNames.length > 0) continue;
    node.notExportedReason =
      node.supersededBy !== undefined
        ? "superseded by a later request before any response"
        : node.failure !== undefined
          ? `generation failed: ${node.failure}`
          : groupDropReason !== undefined
            ? `Group not exported: ${groupDropReason}`
            : "not named by the agent's export";
  }
  const turns = forest.turns.map((turn): TurnView => {
    const view: TurnView = {
      turnId: turn.turn_id,
      transition: turn.transition,
      linear: turn.linear,
      toleratedEdits: turn.tolerated_edits,
      edits: turn.edits.map((edit) => `${edit.kind}@${edit.path}`),
      status: turn.status,
      requestMessages: turn.request_messages,
      matchedMessages: turn.matched_messages,
      promptTokens: turn.prompt_tokens,
      observationStateHash: turn.observation_state_hash,
    };
    if (turn.request_id !== undefined) view.requestId = turn.request_id;
    if (turn.failure !== undefined) view.failure = turn.failure;
    if (turn.response_state_hash !== undefined) view.responseStateHash = turn.response_state_hash;
    return view;
  });
  return {
    nodes,
    turns,
    observationCount: nodes.filter((node) => node.kind === "observation").length,
    responseCount: nodes.filter((node) => node.kind === "response").length,
    diffs: leafDiffs(session, step, byHash),
  };
}

/** The full message history of a node: its lineage's messages, root first. */
function history(
  session: ViewDumpSession,
  stateHash: string,
  byHash: ReadonlyMap<string, TreeNodeView>,
): Record<string, unknown>[] {
  const raw = new Map(session.forest.nodes.map((node) => [node.state_hash, node]));
  const chain: Record<string, unknown>[][] = [];
  for (let hash: string | null = stateHash; hash !== null; hash = byHash.get(hash)?.parent ?? null) {
    const node = raw.get(hash);
    if (node === undefined) break;
    chain.push(node.messages as Record<string, unknown>[]);
  }
  return chain.reverse().flat();
}

function leafDiffs(
  session: ViewDumpSession,
  step: string,
  byHash: ReadonlyMap<string, TreeNodeView>,
): DiffView[] {
  const leaves = [...byHash.values()].filter((node) => node.leaf);
  const first = leaves[0];
  if (first === undefined) return [];
  const base = history(session, first.stateHash, byHash);
  return leaves.slice(1).map((leaf, i): DiffView => {
    const other = history(session, leaf.stateHash, byHash);
    const difference = diffHistories(base, other);
    return {
      id: `${step}/${session.session_id}/diff${i + 1}`,
      sessionId: session.session_id,
      left: { stateHash: first.stateHash, messages: base.map((message) => viewMessage(message)) },
      right: { stateHash: leaf.stateHash, messages: other.map((message) => viewMessage(message)) },
      firstDifferentMessage: difference.message,
      firstDifferentField: difference.field,
    };
  });
}
