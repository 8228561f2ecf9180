interface RadixNode {
  children: Map<number, RadixEdge>;
}

interface RadixEdge {
  tokens: number[];
  node: RadixNode;
}

/**
 * A radix tree over token ids imitating SGLang's prefix (radix) cache, to report `cached_tokens`: the
 * longest prefix of a prompt that an earlier request already computed. When the stored tokens exceed
 * the capacity, the whole cache is dropped (SGLang evicts LRU leaves; the stand-in keeps it simple).
 */
export class PrefixCache {
  #root: RadixNode = { children: new Map() };
  #size = 0;
  readonly #capacity: number;

  constructor({ capacityTokens = 4_000_000 }: { capacityTokens?: number } = {}) {
    this.#capacity = capacityTokens;
  }

  /** Tokens stored. */
  get size(): number {
    return this.#size;
  }

  /** Length of the longest cached prefix of `ids`. */
  match(ids: readonly number[]): number {
    let node = this.#root;
    let matched = 0;
    while (matched < ids.length) {
      const edge = node.children.get(ids[matched]!);
      if (!edge) break;
      let offset = 0;
      while (
        offset < edge.tokens.length &&
        matched + offset < ids.length &&
        edge.tokens[offset] === ids[matched + offset]
      ) {
        offset++;
      }
      matched += offset;
      if (offset < edge.tokens.length) break;
      node = edge.node;
    }
    return matched;
  }

  /** Stores `ids` (and thereby all its prefixes). */
  insert(ids: readonly number[]): void {
    if (this.#size + ids.length > this.#capacity) this.clear();
    let node = this.#root;
    let position = 0;
    while (position < ids.length) {
      const first = ids[position]!;
      const edge = node.children.get(first);
      if (!edge) {
        node.children.set(first, { tokens: ids.slice(position), node: { children: new Map() } });
        this.#size += ids.length - position;
        return;
      }
      let offset = 0;
      while (
        offset < edge.tokens.length &&
        position + offset < ids.length &&
        edge.tokens[offset] === ids[position + offset]
      ) {
        offset++;
      }
      if (offset === edge.tokens.length) {
        node = edge.node;
        position += offset;
        continue;
      }
      if (position + offset === ids.length) return;
      const middle: RadixNode = { children: new Map() };
      const tail: RadixEdge = { tokens: edge.tokens.slice(offset), node: edge.node };
      middle.children.set(tail.tokens[0]!, tail);
      edge.tokens = edge.tokens.slice(0, offset);
      edge.node = middle;
      node = middle;
      position += offset;
    }
  }

  /** Drops everything (`/flush_cache`, weight updates). */
  clear(): void {
    this.#root = { children: new Map() };
    this.#size = 0;
  }
}
