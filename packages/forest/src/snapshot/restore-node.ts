import { SnapshotError } from "../errors/snapshot-error";
import { type InternalObservation, type InternalResponse, storeNode } from "../node/forest-node";
import { chainStateHash, seedStateHash } from "../state/state-hash";
import { compactLogprobs } from "../turn/validate-response";
import type { ForestSnapshot } from "./forest-snapshot";

type SnapshotNode = ForestSnapshot["nodes"][number];
/** A snapshot's observation node, as the schema parsed it. */
export type SnapshotObservation = Extract<SnapshotNode, { kind: "observation" }>;
/** A snapshot's response node, as the schema parsed it. */
export type SnapshotResponse = Extract<SnapshotNode, { kind: "response" }>;

/** What the reader keeps of a node already restored (or of the root), to check and place its children. */
export interface KnownNode {
  kind: "root" | "observation" | "response";
  /** Inference tokens from the root up to and including this node. */
  prefix: number;
  /** Training tokens from the root up to and including this node. */
  trainPrefix: number;
  /** Messages from the root up to and including this node. */
  messages: number;
}

/** Where a snapshot node sits: its path for errors (`nodes[i]`), its parent, its commit order (1-based). */
export interface RestoreNodeContext {
  path: string;
  parent: KnownNode;
  order: number;
}

function fail(path: string, reason: string): never {
  throw new SnapshotError({ path, reason });
}

/**
 * Rebuilds an observation node (children empty). It must follow the root or a response; tools and
 * template kwargs are present exactly when it is a subtree's first observation; its state hash is
 * recomputed from its parent (or seed) and messages.
 *
 * @throws SnapshotError naming the offending path.
 */
export function restoreObservation(
  node: SnapshotObservation,
  { path, parent, order }: RestoreNodeContext,
): InternalObservation {
  if (parent.kind === "observation")
    fail(`${path}.parentStateHash`, "an observation cannot follow an observation");
  const isSubtreeRoot = parent.kind === "root";
  if (isSubtreeRoot !== (node.tools !== undefined && node.chatTemplateKwargs !== undefined)) {
    fail(path, "tools and chatTemplateKwargs are required on, and only on, a subtree's first observation");
  }
  let chain = isSubtreeRoot ? seedStateHash(node.tools!, node.chatTemplateKwargs!) : node.parentStateHash;
  for (const message of node.messages) chain = chainStateHash(chain, message);
  if (chain !== node.stateHash)
    fail(`${path}.stateHash`, `does not match its messages (recomputed ${chain})`);
  const restored = storeNode<InternalObservation>({
    kind: "observation",
    stateHash: node.stateHash,
    parentStateHash: node.parentStateHash,
    order,
    messageCount: parent.messages + node.messages.length,
    tokens: Int32Array.from(node.tokens),
    prefixTokens: parent.prefix,
    prefixTrainTokens: parent.trainPrefix,
    children: [],
    messages: node.messages,
    turnId: node.turnId,
  });
  if (node.trainTokens !== undefined) restored.trainTokens = Int32Array.from(node.trainTokens);
  if (node.media !== undefined) restored.media = node.media;
  if (node.tools !== undefined) restored.tools = node.tools;
  if (node.chatTemplateKwargs !== undefined) restored.chatTemplateKwargs = node.chatTemplateKwargs;
  if (node.resetFrom !== undefined) restored.resetFrom = node.resetFrom;
  if (node.supersededBy !== undefined) restored.supersededBy = node.supersededBy;
  if (node.failure !== undefined) restored.failure = node.failure;
  return restored;
}

/**
 * Rebuilds a response node (children empty). It must follow an observation; its state hash is
 * recomputed from its parent and message; logprobs align 1:1 with tokens; weight-version spans, when
 * present, tile the tokens from 0 to the end.
 *
 * @throws SnapshotError naming the offending path.
 */
export function restoreResponse(
  node: SnapshotResponse,
  { path, parent, order }: RestoreNodeContext,
): InternalResponse {
  if (parent.kind !== "observation") fail(`${path}.parentStateHash`, "a response must follow an observation");
  const chain = chainStateHash(node.parentStateHash, node.message);
  if (chain !== node.stateHash) fail(`${path}.stateHash`, `does not match its message (recomputed ${chain})`);
  if (node.logprobs.length !== node.tokens.length) fail(`${path}.logprobs`, "must align 1:1 with tokens");
  let end = 0;
  node.weightVersionSpans.forEach((item, j) => {
    if (item.start !== end || item.end <= item.start)
      fail(`${path}.weightVersionSpans[${j}]`, "spans must tile the tokens");
    end = item.end;
  });
  if (node.weightVersionSpans.length > 0 && end !== node.tokens.length) {
    fail(`${path}.weightVersionSpans`, "spans must cover every token");
  }
  const restored = storeNode<InternalResponse>({
    kind: "response",
    stateHash: node.stateHash,
    parentStateHash: node.parentStateHash,
    order,
    messageCount: parent.messages + 1,
    tokens: Int32Array.from(node.tokens),
    prefixTokens: parent.prefix,
    prefixTrainTokens: parent.trainPrefix,
    children: [],
    message: node.message,
    logprobs: compactLogprobs(Float64Array.from(node.logprobs)),
    finishReason: node.finishReason,
    weightVersionSpans: node.weightVersionSpans,
    turnId: node.turnId,
  });
  if (node.timing !== undefined) restored.timing = node.timing;
  if (node.metadata !== undefined) restored.metadata = node.metadata;
  return restored;
}

/**
 * What the reader keeps of `node` once restored under `parent`: its prefix lengths include its own
 * tokens (an observation's training tokens when it has them) and its messages.
 */
export function knownNode(node: SnapshotNode, parent: KnownNode): KnownNode {
  return {
    kind: node.kind,
    prefix: parent.prefix + node.tokens.length,
    trainPrefix:
      parent.trainPrefix +
      (node.kind === "observation" && node.trainTokens !== undefined ? node.trainTokens : node.tokens).length,
    messages: parent.messages + (node.kind === "observation" ? node.messages.length : 1),
  };
}
