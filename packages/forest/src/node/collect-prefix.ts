import type { InternalNode } from "./forest-node";
import { unpackTokensInto } from "./token-store";

/** Concatenates the lineage tokens of `stateHash` into a `number[]` of known length. */
export function collectPrefix(
  nodes: ReadonlyMap<string, InternalNode>,
  stateHash: string,
  length: number,
): number[] {
  const out = new Array<number>(length);
  let node = nodes.get(stateHash);
  let end = length;
  while (node !== undefined) {
    end -= node.tokenCount;
    unpackTokensInto(node.tokenStore, node.tokenCount, out, end);
    node = node.parentStateHash === null ? undefined : nodes.get(node.parentStateHash);
  }
  return out;
}

/** Like {@link collectPrefix}, into an `Int32Array` (one `set` per node, then its wide ids). */
export function collectPrefixArray(
  nodes: ReadonlyMap<string, InternalNode>,
  stateHash: string,
  length: number,
): Int32Array {
  const out = new Int32Array(length);
  let node = nodes.get(stateHash);
  let end = length;
  while (node !== undefined) {
    end -= node.tokenCount;
    unpackTokensInto(node.tokenStore, node.tokenCount, out, end);
    node = node.parentStateHash === null ? undefined : nodes.get(node.parentStateHash);
  }
  return out;
}

/** Training tokens a node adds to its lineage: its expanded delta when it has images, else its tokens. */
export function trainLength(node: InternalNode): number {
  return node.kind === "observation" && node.trainTokens !== undefined
    ? node.trainTokens.length
    : node.tokenCount;
}

/** The image URLs of the lineage of `stateHash`, root first, in prompt order (SGLang `image_data`). */
export function collectImageData(nodes: ReadonlyMap<string, InternalNode>, stateHash: string): string[] {
  const chunks: string[][] = [];
  let node = nodes.get(stateHash);
  while (node !== undefined) {
    if (node.kind === "observation" && node.media !== undefined)
      chunks.push(node.media.map((item) => item.url));
    node = node.parentStateHash === null ? undefined : nodes.get(node.parentStateHash);
  }
  return chunks.reverse().flat();
}

/** Training ids of one node's delta. */
export function trainTokensOf(node: InternalNode): Int32Array {
  return node.kind === "observation" && node.trainTokens !== undefined ? node.trainTokens : node.tokens;
}
