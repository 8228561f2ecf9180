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
  rewrittenAt?: number | undefined;
}

/** Dependencies of {@link matchState}: node lookup and the redaction pattern. */
export interface MatchContext {
  nodes: ReadonlyMap<string, InternalNode>;
  root: InternalNode;
  redaction: RegExp;
}

/** Equal / different (then their hashed forms differ) / not decided here (plain shapes only). */
type Same = 0 | 1 | 2;
const DIFFERENT: Same = 0;
const EQUAL: Same = 1;
const UNDECIDED: Same = 2;

const PLAIN_KEYS = new Set(["role", "content", "reasoning_content", "tool_calls", "tool_call_id"]);

function plainFields(message: ChatMessage): Record<string, unknown> | undefined {
  const record = message as unknown as Record<string, unknown>;
  for (const key in record) if (!PLAIN_KEYS.has(key)) return undefined;
  if (typeof record.content !== "string" || typeof record.role !== "string") return undefined;
  return record;
}

function sameToolCalls(a: unknown, b: unknown): Same {
  if (!Array.isArray(a) || !Array.isArray(b)) return UNDECIDED;
  if (a.length !== b.length) return UNDECIDED;
  let verdict: Same = EQUAL;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Record<string, unknown> | null;
    const y = b[i] as Record<string, unknown> | null;
    if (x === null || y === null || typeof x !== "object" || typeof y !== "object") return UNDECIDED;
    if (Object.keys(x).length !== 3 || Object.keys(y).length !== 3) return UNDECIDED;
    const fx = x.function as Record<string, unknown> | null;
    const fy = y.function as Record<string, unknown> | null;
    if (fx === null || fy === null || typeof fx !== "object" || typeof fy !== "object") return UNDECIDED;
    if (Object.keys(fx).length !== 2 || Object.keys(fy).length !== 2) return UNDECIDED;
    for (const value of [x.type, x.id, y.type, y.id, fx.name, fx.arguments, fy.name, fy.arguments]) {
      if (typeof value !== "string") return UNDECIDED;
    }
    if (x.type !== y.type || x.id !== y.id || fx.name !== fy.name || fx.arguments !== fy.arguments)
      verdict = DIFFERENT;
  }
  return verdict;
}

/**
 * Compares a committed message with a request message without hashing either: `EQUAL` only when their
 * hashed forms (`serializeMessage`) are the same, `DIFFERENT` only when they differ, for the plain
 * canonical shape (string content, the five known keys, plain tool calls); anything else is `UNDECIDED`.
 * String comparison is a memory compare, so this costs far less than serialising and hashing.
 */
function sameMessage(committed: ChatMessage, request: ChatMessage): Same {
  if (committed === request) return EQUAL;
  const a = plainFields(committed);
  const b = plainFields(request);
  if (a === undefined || b === undefined) return UNDECIDED;
  for (const key of ["reasoning_content", "tool_call_id"] as const) {
    if (a[key] !== undefined && typeof a[key] !== "string") return UNDECIDED;
    if (b[key] !== undefined && typeof b[key] !== "string") return UNDECIDED;
  }
  let calls: Same = EQUAL;
  if (a.tool_calls !== undefined || b.tool_calls !== undefined) {
    if (a.tool_calls === undefined || b.tool_calls === undefined) {
      // One side has calls: the hashed forms differ if the other's calls are plain (or absent).
      calls = sameToolCalls(a.tool_calls ?? [], b.tool_calls ?? []) === UNDECIDED ? UNDECIDED : DIFFERENT;
      if (calls === UNDECIDED) return UNDECIDED;
    } else {
      calls = sameToolCalls(a.tool_calls, b.tool_calls);
      if (calls === UNDECIDED) return UNDECIDED;
    }
  }
  if (calls === DIFFERENT) return DIFFERENT;
  return a.role === b.role &&
    a.content === b.content &&
    a.reasoning_content === b.reasoning_content &&
    a.tool_call_id === b.tool_call_id
    ? EQUAL
    : DIFFERENT;
}

/** How a child's messages compare with the request's from `depth` on. */
function childMatches(
  context: MatchContext,
  child: InternalNode,
  messages: readonly ChatMessage[],
  depth: number,
  seed: string,
  seedOf: (node: InternalNode) => string,
): Same {
  if (child.kind === "response") {
    const next = messages[depth];
    return next === undefined ? DIFFERENT : sameMessage(child.message, next);
  }
  if (child.kind !== "observation") return UNDECIDED;
  const span = child.messages;
  if (depth + span.length > messages.length) return DIFFERENT;
  if (child.parentStateHash === context.root.stateHash && seedOf(child) !== seed) return DIFFERENT;
  let verdict: Same = EQUAL;
  for (let i = 0; i < span.length; i++) {
    const same = sameMessage(span[i]!, messages[depth + i]!);
    if (same === DIFFERENT) return DIFFERENT;
    if (same === UNDECIDED) verdict = UNDECIDED;
  }
  return verdict;
}

/**
 * The walk's position after the request's leading messages that follow committed nodes one child at a
 * time, found by comparing messages instead of hashing them: from the root, step into the one child whose
 * messages equal the request's next ones; stop where no child, or more than one, matches, or a comparison
 * is undecided. Every committed state that is a prefix of the request and no deeper than the position is
 * then on the path taken (each step had exactly one matching child), so the hash walk from there finds
 * what it finds from the seed, hashing only the messages after it (O(new messages) hashes per turn
 * instead of O(history)).
 */
function descend(
  context: MatchContext,
  messages: readonly ChatMessage[],
  seed: string,
  seedOf: (node: InternalNode) => string,
): WalkPosition {
  let node = context.root;
  let depth = 0;
  for (;;) {
    let next: InternalNode | undefined;
    let ambiguous = false;
    for (const hash of node.children) {
      const child = context.nodes.get(hash);
      if (child === undefined) continue;
      const same = childMatches(context, child, messages, depth, seed, seedOf);
      if (same === DIFFERENT) continue;
      if (same === UNDECIDED || next !== undefined) {
        ambiguous = true;
        break;
      }
      next = child;
    }
    if (ambiguous || next === undefined) break;
    node = next;
    depth = node.messageCount;
  }
  return node === context.root
    ? { chain: seed, node, depth: 0, index: 0 }
    : { chain: node.stateHash, node, depth, index: depth };
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
  options: {
    messages: readonly ChatMessage[];
    seed: string;
    tolerant: boolean;
    /**
     * The subtree seed of a root child; with it, the committed messages the request repeats are compared
     * rather than hashed ({@link descend}). Without it, every message is hashed (the reference).
     */
    seedOf?: (node: InternalNode) => string;
  },
): StateMatch {
  const { messages, seed, tolerant, seedOf } = options;
  const start =
    seedOf === undefined
      ? { chain: seed, node: context.root, depth: 0, index: 0 }
      : descend(context, messages, seed, seedOf);
  const exact = walk(context, messages, start, false);
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
