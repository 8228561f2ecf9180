import type { InternalNode } from "./node/forest-node";
import type { TransitionClass } from "./sample/training-sample";
import type { ForestStats } from "./session-forest-types";
import type { TurnRecord } from "./turn/turn-record";

/** Counts nodes, tokens, token storage bytes and turn outcomes in one pass (O(nodes + turns)). */
export function computeForestStats(options: {
  nodes: Iterable<InternalNode>;
  turns: readonly TurnRecord[];
  leaves: number;
  exportableLeaves: number;
  subtrees: number;
}): ForestStats {
  const transitions: Record<TransitionClass, number> = { append: 0, branch: 0, drift: 0, reset: 0 };
  const stats: ForestStats = {
    nodes: 0,
    observations: 0,
    responses: 0,
    leaves: options.leaves,
    exportableLeaves: options.exportableLeaves,
    subtrees: options.subtrees,
    turns: options.turns.length,
    pendingTurns: 0,
    failedTurns: 0,
    transitions,
    toleratedEdits: 0,
    observationTokens: 0,
    responseTokens: 0,
    tokenBytes: 0,
  };
  for (const turn of options.turns) {
    transitions[turn.transition]++;
    stats.toleratedEdits += turn.toleratedEdits.length;
    if (turn.status === "pending") stats.pendingTurns++;
    if (turn.status === "failed") stats.failedTurns++;
  }
  for (const node of options.nodes) {
    stats.nodes++;
    stats.tokenBytes += node.tokenStore.byteLength;
    if (node.kind === "observation") {
      stats.observations++;
      stats.observationTokens += node.tokenCount;
    } else if (node.kind === "response") {
      stats.responses++;
      stats.responseTokens += node.tokenCount;
      stats.tokenBytes += node.logprobs.byteLength;
    }
  }
  return stats;
}
