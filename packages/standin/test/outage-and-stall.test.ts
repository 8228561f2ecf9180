import { createSglangClient } from "@relax/sglang";
import { afterEach, describe, expect, it } from "vitest";
import { createStandinEngine, type StandinEngine } from "../src/index";
import { constantPolicy } from "../src/testing/index";
import { chatPrompt, IM_END, qwen3Tokenizer } from "./support/qwen3-tokenizer";

const tokenizer = await qwen3Tokenizer();
const engines: StandinEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});

const REPLY = "one two three four five six";
const prompt = tokenizer.encode(chatPrompt("Count to six"));

async function start(tokenLatencyMs = 5) {
  const engine = createStandinEngine({ tokenizer, seed: 3, tokenLatencyMs, policy: constantPolicy(REPLY) });
  engines.push(engine);
  await engine.listen();
  return engine;
}

describe("outage window", () => {
  it("should drop requests in flight, reset every connection while it lasts, and serve again after", async () => {
    const engine = await start();
    const inFlight = fetch(`${engine.url}/generate`, {
      method: "POST",
      body: JSON.stringify({ input_ids: prompt }),
    }).then(
      (response) => `answered ${response.status}`,
      (error: Error) => `failed: ${(error.cause as { code?: string } | undefined)?.code ?? error.message}`,
    );
    await engine.whenGenerated({ tokens: 2 });
    engine.startOutage({ durationMs: 300 });
    expect(engine.outage).toBe("refuse");
    expect(await inFlight).toBe("failed: UND_ERR_SOCKET");
    expect(engine.requests()).toEqual([]);
    const client = createSglangClient({ baseUrl: engine.url, controlTimeoutMs: 1_000 });
    const [down] = await client.health();
    expect(down!.ok).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(engine.outage).toBeUndefined();
    expect((await client.health())[0]!.ok).toBe(true);
    const result = await client.generate({ inputIds: prompt });
    expect(result.outputIds).toEqual([...tokenizer.encode(REPLY), IM_END]);
    expect(result.finishReason.type).toBe("stop");
  });

  it("should answer 503 on every route in http-503 mode until endOutage", async () => {
    const engine = await start(0);
    engine.startOutage({ mode: "http-503" });
    const health = await fetch(`${engine.url}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({
      error: { message: "stand-in outage: the engine is not ready (HTTP 503)" },
    });
    engine.endOutage();
    expect((await fetch(`${engine.url}/health`)).status).toBe(200);
  });
});

describe("stall", () => {
  it("should freeze generation and /health_generate while /health answers, then continue where it stopped", async () => {
    const engine = await start();
    const client = createSglangClient({ baseUrl: engine.url, controlTimeoutMs: 200 });
    const generation = client.generate({ inputIds: prompt });
    await engine.whenGenerated({ tokens: 2 });
    engine.startStall();
    const frozenAt = engine.requests()[0]!.outputTokens;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(engine.requests()[0]!.outputTokens).toBe(frozenAt);
    expect((await client.health())[0]!.ok).toBe(true);
    const [stalled] = await client.health({ generate: true });
    expect(stalled!.ok).toBe(false);
    engine.endStall();
    expect((await client.health({ generate: true }))[0]!.ok).toBe(true);
    const result = await generation;
    expect(result.outputIds).toEqual([...tokenizer.encode(REPLY), IM_END]);
    expect(result.finishReason.type).toBe("stop");
  });
});

describe("/standin/* control routes (a stand-in in its own process)", () => {
  it("should start an outage, a stall and a fault rule over HTTP, and refuse a bad body naming the field", async () => {
    const engine = await start(0);
    const post = (path: string, body: unknown) =>
      fetch(`${engine.url}${path}`, { method: "POST", body: JSON.stringify(body) });
    const bad = await post("/standin/outage", { duration_ms: "soon" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: { message: "duration_ms: must be a number of milliseconds >= 0" },
    });
    expect((await post("/standin/stall", {})).status).toBe(200);
    expect(engine.stalled).toBe(true);
    expect((await post("/standin/end_stall", {})).status).toBe(200);
    expect(engine.stalled).toBe(false);
    expect((await post("/standin/faults", { fault: { type: "http-error", status: 502 } })).status).toBe(200);
    expect((await post("/generate", { input_ids: prompt })).status).toBe(502);
    expect((await post("/standin/outage", { duration_ms: 200, mode: "http-503" })).status).toBe(200);
    // The outage starts once the answer is sent, dropping the open (keep-alive) connections with it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(engine.outage).toBe("http-503");
    expect((await fetch(`${engine.url}/health`)).status).toBe(503);
  });
});
