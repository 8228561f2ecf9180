import type { InternalNode } from "./forest-node";

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
    const tokens = node.tokens;
    end -= tokens.length;
    for (let i = 0; i < tokens.length; i++) out[end + i] = tokens[i]!;
    node = node.parentStateHash === null ? undefined : nodes.get(node.parentStateHash);
  }
  return out;
}
