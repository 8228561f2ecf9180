import { sameJson } from "../canonical/same-json";
import { stableStringify } from "../canonical/stable-stringify";
import type { ChatTemplateKwargs, FunctionTool } from "../messages/function-tool";

/** How many (tools, kwargs) prefixes one renderer keeps. */
export const MAX_CACHED_PREFIXES = 64;

/**
 * A least-recently-used cache of one value per (tools, merged kwargs), keyed by their stable
 * serialisation, in front of which the last (tools, request kwargs) asked for is kept as copies and
 * compared by structure: a session asks with the same tools and kwargs every turn, so most lookups
 * serialise nothing.
 */
export class PrefixCache<T> {
  readonly #entries = new Map<string, T>();
  #last: { tools: unknown; kwargs: unknown; value: T } | undefined;

  /**
   * @param build - computes the value for (tools, merged kwargs); what it throws is not cached.
   * @param mergeKwargs - the request kwargs merged over the renderer's defaults.
   * @param capacity - entries kept before the least recently used is evicted.
   */
  constructor(
    private readonly build: (tools: FunctionTool[], kwargs: ChatTemplateKwargs) => T,
    private readonly mergeKwargs: (kwargs: ChatTemplateKwargs) => ChatTemplateKwargs,
    readonly capacity = MAX_CACHED_PREFIXES,
  ) {}

  /** Entries held (the last-asked copy aside). */
  get size(): number {
    return this.#entries.size;
  }

  /** The value for these tools and request kwargs, built on a miss. */
  get(tools: FunctionTool[], requestKwargs: ChatTemplateKwargs): T {
    const last = this.#last;
    if (last !== undefined && sameJson(last.kwargs, requestKwargs) && sameJson(last.tools, tools)) {
      return last.value;
    }
    const value = this.#keyed(tools, requestKwargs);
    this.#last = { tools: structuredClone(tools), kwargs: structuredClone(requestKwargs), value };
    return value;
  }

  #keyed(tools: FunctionTool[], requestKwargs: ChatTemplateKwargs): T {
    const kwargs = this.mergeKwargs(requestKwargs);
    const key = stableStringify({ tools, kwargs });
    const entries = this.#entries;
    if (entries.has(key)) {
      const cached = entries.get(key) as T;
      entries.delete(key);
      entries.set(key, cached);
      return cached;
    }
    const value = this.build(tools, kwargs);
    if (entries.size >= this.capacity) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) entries.delete(oldest);
    }
    entries.set(key, value);
    return value;
  }
}
