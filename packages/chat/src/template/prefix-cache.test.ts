import { describe, expect, it } from "vitest";
import type { ChatTemplateKwargs, FunctionTool } from "../messages/function-tool";
import { PrefixCache } from "./prefix-cache";

const tool = (name: string): FunctionTool => ({ type: "function", function: { name, parameters: {} } });

function counting(capacity?: number) {
  const built: string[] = [];
  const cache = new PrefixCache<string>(
    (tools, kwargs) => {
      const value = `${tools.map((t) => t.function.name).join(",")}|${JSON.stringify(kwargs)}`;
      built.push(value);
      return value;
    },
    (kwargs: ChatTemplateKwargs) => ({ enable_thinking: true, ...kwargs }),
    capacity,
  );
  return { cache, built };
}

describe("PrefixCache", () => {
  it("should build once per (tools, merged kwargs), whoever asks", () => {
    const { cache, built } = counting();
    expect(cache.get([tool("a")], {})).toBe('a|{"enable_thinking":true}');
    expect(cache.get([tool("a")], {})).toBe('a|{"enable_thinking":true}');
    // Different request kwargs that merge to the same kwargs share the entry.
    expect(cache.get([tool("a")], { enable_thinking: true })).toBe('a|{"enable_thinking":true}');
    expect(cache.get([tool("a")], { enable_thinking: false })).toBe('a|{"enable_thinking":false}');
    expect(built).toEqual(['a|{"enable_thinking":true}', 'a|{"enable_thinking":false}']);
    expect(cache.size).toBe(2);
  });

  it("should keep its own copy of the last tools asked for", () => {
    const { cache, built } = counting();
    const tools = [tool("a")];
    cache.get(tools, {});
    tools[0]!.function.name = "b";
    expect(cache.get(tools, {})).toBe('b|{"enable_thinking":true}');
    expect(built).toHaveLength(2);
  });

  it("should evict the least recently used entry beyond its capacity", () => {
    const { cache, built } = counting(2);
    cache.get([tool("a")], {});
    cache.get([tool("b")], {});
    cache.get([tool("a")], {}); // a is now the most recent
    cache.get([tool("c")], {}); // evicts b
    expect(cache.size).toBe(2);
    cache.get([tool("a")], {});
    expect(built.map((v) => v[0])).toEqual(["a", "b", "c"]);
    cache.get([tool("b")], {});
    expect(built.map((v) => v[0])).toEqual(["a", "b", "c", "b"]);
  });

  it("should cache nothing when the build throws", () => {
    let fail = true;
    const cache = new PrefixCache<number>(
      () => {
        if (fail) throw new Error("template");
        return 1;
      },
      (kwargs) => kwargs,
    );
    expect(() => cache.get([], {})).toThrowError("template");
    expect(cache.size).toBe(0);
    fail = false;
    expect(cache.get([], {})).toBe(1);
  });
});
