import type { ChatMessage } from "@relax/chat";
import { compareAssistantEcho } from "../drift/compare-assistant-echo";
import type { HistoryEdit } from "../drift/history-edit";
import type { InternalNode, InternalResponse } from "../node/forest-node";
import { chainStateHash } from "./state-hash";

/** Where a walk over a request's messages stands. */
interface WalkPosition {
  /** Chain value over the messages consumed so far, in committed coordinates. */
  chain: string;
  /** Deepest committed node reached. */
  node: InternalNode;
  /** Messages of the request covered by `node`. */
  depth: number;
  /** Next message index to hash. */
  index: number;
}

/** A position where a tolerant step could apply: at a node boundary, an assistant message missed. */
interface Candidate extends WalkPosition {}

interface WalkResult extends WalkPosition {
  edits: HistoryEdit[];
  candidates: Candidate[];
}

/** The result of matching a request against the committed forest. */
export interface StateMatch {
  /** Deepest committed node the request continues (the root when nothing matched). */
  node: InternalNode;
  /** Number of leading request messages that node covers. */
  depth: number;
  /** State hash of the whole request, mapped onto committed states where edits were tolerated. */
  stateHash: string;
  /** Benign edits applied to reach `node` (non-empty only under the tolerant policy). */
  toleratedEdits: HistoryEdit[];
  /** Benign edits a tolerant match would have applied, found under the exact policy (the request forks). */
  forkedEdits: HistoryEdit[];
  /**
   * Index of a request message that rewrote a committed response beyond benign edits: the match stopped at
   * an observation whose response children all differ from that assistant message.
   */
  rewrittenAt?: number;
}

/** Dependencies of {@link matchState}: node lookup and the redaction pattern. */
export interface MatchContext {
  nodes: ReadonlyMap<string, InternalNode>;
  root: InternalNode;
  redaction: RegExp;
}

function bestToleratedChild(
  context: MatchContext,
  observation: InternalNode,
  message: ChatMessage,
  path: string,
): { node: InternalResponse; edits: HistoryEdit[] } | undefined {
  let best: { node: InternalResponse; edits: HistoryEdit[] } | undefined;
  for (const hash of observation.children) {
    const child = context.nodes.get(hash);
    if (child?.kind !== "response") continue;
    const edits = compareAssistantEcho({
      committed: child.message,
      echoed: message,
      path,
      redaction: context.redaction,
    });
    if (edits === null || edits.length === 0) continue;
    if (best === undefined || edits.length < best.edits.length) best = { node: child, edits };
  }
  return best;
}

function walk(
  context: MatchContext,
  messages: readonly ChatMessage[],
  start: WalkPosition,
  tolerant: boolean,
): WalkResult {
  let { chain, node, depth } = start;
  const edits: HistoryEdit[] = [];
  const candidates: Candidate[] = [];
  for (let i = start.index; i < messages.length; i++) {
    const message = messages[i]!;
    const next = chainStateHash(chain, message);
    const hit = context.nodes.get(next);
    if (hit !== undefined) {
      chain = next;
      node = hit;
      depth = i + 1;
      continue;
    }
    if (depth === i && node.kind === "observation" && message.role === "assistant") {
      if (tolerant) {
        const found = bestToleratedChild(context, node, message, `messages[${i}]`);
        if (found !== undefined) {
          chain = found.node.stateHash;
          node = found.node;
          depth = i + 1;
          edits.push(...found.edits);
          continue;
        }
      }
      candidates.push({ chain, node, depth, index: i });
    }
    chain = next;
  }
  return { chain, node, depth, index: messages.length, edits, candidates };
}

/**
 * Finds the longest committed prefix of a request in one pass over its messages (O(n) hashes): the chain
 * hash of every prefix is looked up as it is computed, and the deepest hit wins — the same answer as a
 * scan from the full length down, without re-hashing each prefix (see docs/contract.md#sessionforest).
 *
 * Under the tolerant policy, an assistant message that misses at a node boundary is compared with the
 * committed responses there ({@link compareAssistantEcho}); a benign copy continues the walk from the
 * committed response, so later states chain from what was generated. A second, exact walk from the first
 * such point keeps the result at least as deep as exact matching. Under the exact policy the same probe
 * only reports the edits (the request then forks).
 *
 * @param seed - the request's subtree seed (`seedStateHash(tools, kwargs)`).
 */
export function matchState(
  context: MatchContext,
  options: { messages: readonly ChatMessage[]; seed: string; tolerant: boolean },
): StateMatch {
  const { messages, seed, tolerant } = options;
  const exact = walk(context, messages, { chain: seed, node: context.root, depth: 0, index: 0 }, false);
  const first = exact.candidates[0];
  let chosen: WalkResult = exact;
  let forkedEdits: HistoryEdit[] = [];
  if (first !== undefined) {
    const probe = walk(context, messages, first, true);
    if (probe.edits.length > 0 && probe.depth > exact.depth) {
      if (tolerant) chosen = probe;
      else forkedEdits = probe.edits;
    }
  }
  let rewrittenAt: number | undefined;
  const stop = chosen.node;
  const next = messages[chosen.depth];
  if (stop.kind === "observation" && next?.role === "assistant") {
    const hasResponse = stop.children.some((hash) => context.nodes.get(hash)?.kind === "response");
    if (hasResponse) rewrittenAt = chosen.depth;
  }
  return {
    node: chosen.node,
    depth: chosen.depth,
    stateHash: chosen.chain,
    toleratedEdits: chosen === exact ? [] : chosen.edits,
    forkedEdits,
    rewrittenAt,
  };
}
