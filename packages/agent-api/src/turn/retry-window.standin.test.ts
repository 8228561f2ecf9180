import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, type TestGateway } from "../testing/create-test-gateway";

// The stand-in engine (a scripted policy, not a model) answers each call with a new number, so a request
// generated twice would get two different answers. A prompt naming a delay makes that turn slow; a prompt
// saying "hold" generates only once the test releases it.
let generated = 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let held = Promise.resolve();
let release = () => {};
const holdNextGeneration = () => {
  held = new Promise<void>((resolve) => {
    release = resolve;
  });
};

describe("a generation outlives its client for the client's retry (stand-in engine, not a model)", () => {
  let gateway: TestGateway;
  let quick: TestGateway;
  beforeAll(async () => {
    const policy = async ({ promptText }: { promptText: string }) => {
      const delay = /slow (\d+) ms/.exec(promptText)?.[1];
      if (delay !== undefined) await sleep(Number(delay));
      if (promptText.includes("hold")) await held;
      return `Call ${++generated}.`;
    };
    gateway = await createTestGateway({ policy });
    quick = await createTestGateway({ policy, turns: { retryWindowMs: 150 } });
  });
  afterAll(async () => {
    await Promise.all([gateway.close(), quick.close()]);
  });

  const generateCalls = (on: TestGateway, from: number) =>
    on.standin.calls.slice(from).filter((call) => call.path === "/generate").length;
  /** The real openai SDK, over `on`; `beforeRetry` runs before each retry is sent. */
  const sdk = (on: TestGateway, id: string, attempts: { count: number }, beforeRetry = async () => {}) =>
    new OpenAI({
      apiKey: id,
      baseURL: "http://gateway.test/agentic_api/v1",
      // Shorter than the slow turn: the SDK gives up on its first attempt and retries (its own backoff).
      timeout: 500,
      maxRetries: 2,
      // As over a socket: the SDK's timeout aborts the fetch (the in-process app would answer 499 instead).
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        if (++attempts.count > 1) await beforeRetry();
        const signal = init?.signal;
        return new Promise<Response>((resolve, reject) => {
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
          on.fetch(new Request(input, init)).then(resolve, reject);
        });
      },
    });
  const sampleText = (on: TestGateway, id: string) => {
    const forest = on.registry.get(id)!.forest;
    return on.tokenizer.decode(forest.buildSample(forest.implicitExportLeaf().stateHash).tokens);
  };

  it("should answer the openai SDK's retry after its timeout from the generation still running", async () => {
    const session = gateway.openSession("window-inflight");
    const from = gateway.standin.calls.length;
    const attempts = { count: 0 };
    holdNextGeneration();
    // The generation goes on only after the retry was sent: the retry is answered while it generates.
    const releaseAfterRetry = async () => {
      setTimeout(release, 100);
    };
    const completion = await sdk(
      gateway,
      "window-inflight",
      attempts,
      releaseAfterRetry,
    ).chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "Take your time (hold)." }],
    });
    expect(attempts.count).toBe(2);
    expect(generateCalls(gateway, from)).toBe(1);
    const content = completion.choices[0]!.message.content!;
    expect(content).toMatch(/^Call \d+\.$/);
    expect(session.forest.turns().map((turn) => [turn.transition, turn.status, turn.replayOf])).toEqual([
      ["append", "committed", undefined],
      ["append", "committed", 0],
    ]);
    expect(sampleText(gateway, "window-inflight")).toBe(
      `<|im_start|>user\nTake your time (hold).<|im_end|>\n<|im_start|>assistant\n${content}<|im_end|>`,
    );
  });

  it("should commit a generation that finished after its client left only when the retry reads it", async () => {
    const session = gateway.openSession("window-finished");
    const from = gateway.standin.calls.length;
    const attempts = { count: 0 };
    let sendRetry = () => {};
    const retryHeld = new Promise<void>((resolve) => {
      sendRetry = resolve;
    });
    const pending = sdk(gateway, "window-finished", attempts, () => retryHeld).chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "Think (slow 600 ms)." }],
    });
    // The SDK gave up at 500 ms; the generation finished at 600 ms, its answer unread: nothing committed.
    await sleep(1000);
    expect(generateCalls(gateway, from)).toBe(1);
    expect(session.forest.turns().map((turn) => turn.status)).toEqual(["pending"]);
    sendRetry();
    const completion = await pending;
    expect(attempts.count).toBe(2);
    expect(generateCalls(gateway, from)).toBe(1);
    expect(session.forest.turns().map((turn) => [turn.status, turn.replayOf])).toEqual([
      ["committed", undefined],
      ["committed", 0],
    ]);
    expect(sampleText(gateway, "window-finished")).toContain(
      `assistant\n${completion.choices[0]!.message.content}<|im_end|>`,
    );
  });

  it("should abort the generation and commit nothing when no retry comes within the window", async () => {
    const session = quick.openSession("window-gone");
    const from = quick.standin.calls.length;
    const client = new AbortController();
    const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: "Wait (slow 600 ms)." }] });
    const request = new Request("http://gateway.test/agentic_api/v1/chat/completions", {
      method: "POST",
      headers: { authorization: "Bearer window-gone", "content-type": "application/json" },
      body,
      signal: client.signal,
    });
    const answered = quick.fetch(request).catch((error: unknown) => error);
    await sleep(100);
    client.abort();
    await answered;
    // The window (150 ms) closes before the slow generation (600 ms) ends: the turn failed, no response.
    await sleep(900);
    expect(session.forest.turns().map((turn) => turn.status)).toEqual(["failed"]);
    expect(session.forest.exportableLeaves()).toEqual([]);
    expect(quick.standin.calls.slice(from).map((call) => call.path)).toEqual(["/generate", "/abort_request"]);
    // The agent asks again later: a fresh generation, still one linear context.
    const again = await quick.fetch(
      new Request("http://gateway.test/agentic_api/v1/chat/completions", {
        method: "POST",
        headers: { authorization: "Bearer window-gone", "content-type": "application/json" },
        body,
      }),
    );
    expect(again.status).toBe(200);
    expect(generateCalls(quick, from)).toBe(2);
    expect(session.forest.turns().map((turn) => [turn.transition, turn.linear, turn.status])).toEqual([
      ["append", true, "failed"],
      ["append", true, "committed"],
    ]);
    expect(session.forest.implicitExportLeaf().kind).toBe("response");
  });
});
