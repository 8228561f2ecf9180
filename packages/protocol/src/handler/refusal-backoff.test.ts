import { describe, expect, it } from "vitest";
import { TEXT_TURN } from "../../test/support/scripted-generate";
import { createProtocolHandler } from "./create-protocol-handler";
import { resolveHandlerSettings } from "./handler-options";
import { DEFAULT_REFUSAL_BACKOFF, RefusalBackoff } from "./refusal-backoff";

describe("RefusalBackoff", () => {
  it("should wait nothing before a refusal, then 50 ms doubling to 500 ms after the last refusal", () => {
    let now = 1_000;
    const backoff = new RefusalBackoff({}, () => now);
    expect(backoff.admit("a")).toBe(0);
    const waits: number[] = [];
    for (let refusal = 1; refusal <= 7; refusal++) {
      backoff.refused("a");
      waits.push(backoff.admit("a"));
      now += waits.at(-1)!;
    }
    expect(waits).toEqual([50, 100, 200, 400, 500, 500, 500]);
    // Another session is not in backoff.
    expect(backoff.admit("b")).toBe(0);
    expect([0, 1, 2, 5, 6].map((count) => backoff.delayAfter(count))).toEqual([0, 50, 100, 500, 500]);
  });

  it("should count the wait from the last refusal, and space concurrent bodies of one session", () => {
    let now = 0;
    const backoff = new RefusalBackoff({ initialMs: 100 }, () => now);
    backoff.refused("a");
    now = 30;
    // Three bodies at once: admitted at 100, 200 and 300 ms.
    expect([backoff.admit("a"), backoff.admit("a"), backoff.admit("a")]).toEqual([70, 170, 270]);
    now = 400;
    expect(backoff.admit("a")).toBe(0);
  });

  it("should forget a session's refusals after resetMs of quiet", () => {
    let now = 0;
    const backoff = new RefusalBackoff({}, () => now);
    for (let i = 0; i < 7; i++) backoff.refused("a");
    expect(backoff.admit("a")).toBe(DEFAULT_REFUSAL_BACKOFF.maxMs);
    now = DEFAULT_REFUSAL_BACKOFF.resetMs;
    expect(backoff.admit("a")).toBe(0);
    expect(backoff.size).toBe(0);
    // A refusal after the quiet time starts a new count: the next body waits the first wait again.
    backoff.refused("a");
    expect(backoff.admit("a")).toBe(DEFAULT_REFUSAL_BACKOFF.initialMs);
  });

  it("should remember at most 4,096 sessions", () => {
    let now = 0;
    const backoff = new RefusalBackoff({}, () => now);
    for (let i = 0; i < 5_000; i++) {
      now++;
      backoff.refused(`s${i}`);
    }
    expect(backoff.size).toBe(4_096);
    expect(backoff.admit("s0")).toBe(0);
    expect(backoff.admit("s4999")).toBe(DEFAULT_REFUSAL_BACKOFF.initialMs);
  });

  it("should reject the wait with the signal's reason when the client leaves", async () => {
    const backoff = new RefusalBackoff({ initialMs: 10_000 });
    backoff.refused("a");
    const abort = new AbortController();
    const waiting = backoff.wait("a", abort.signal);
    abort.abort(new Error("client left"));
    await expect(waiting).rejects.toThrow("client left");
  });
});

describe("createProtocolHandler: refused bodies put only their session in backoff", () => {
  const CHAT = "http://relax.test/v1/chat/completions";
  const post = (credential: string, body: string) =>
    new Request(CHAT, {
      method: "POST",
      headers: { authorization: `Bearer ${credential}`, "content-type": "application/json" },
      body,
    });
  const tooMany = JSON.stringify({ messages: [1, 2, 3, 4].map(() => ({ role: "user", content: "x" })) });
  const fine = JSON.stringify({ messages: [{ role: "user", content: "hi" }] });

  it("should read a session's body initialMs after its refusal, and a healthy one's at once", async () => {
    const handler = createProtocolHandler({
      generate: async () => TEXT_TURN,
      authenticate: () => true,
      requestLimits: { maxMessages: 3 },
      refusalBackoff: { initialMs: 300, maxMs: 600 },
    });
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const response = await handler(post("attacker", tooMany));
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
        "request_limit_exceeded",
      );
      times.push(performance.now() - started);
    }
    // The first body waits for nothing; after a refusal, 300 ms, then 600 ms from the last refusal (counted
    // from the refusal, so the round trip sees the wait less the time its answer took to arrive).
    expect(times[0]!).toBeLessThan(200);
    expect(times[1]!).toBeGreaterThanOrEqual(250);
    expect(times[2]!).toBeGreaterThanOrEqual(550);
    const started = performance.now();
    const healthy = await handler(post("healthy", fine));
    expect(healthy.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it("should be one backoff per handler, and none when turned off", () => {
    const generate = async () => TEXT_TURN;
    expect(resolveHandlerSettings({ generate }).backoff).toBeInstanceOf(RefusalBackoff);
    expect(resolveHandlerSettings({ generate, refusalBackoff: false }).backoff).toBeUndefined();
  });
});
