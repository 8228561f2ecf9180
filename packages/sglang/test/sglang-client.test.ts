import { afterEach, describe, expect, it } from "vitest";
import {
  ContextLengthError,
  createSglangClient,
  SglangAbortError,
  SglangApiError,
  SglangConnectionError,
  SglangInvalidArgumentError,
  SglangServerError,
  SglangTimeoutError,
} from "../src/index";
import { parseRetryAfter } from "../src/internal/index";
import { type CannedCall, json, reply, startCannedServer } from "./canned-server";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function server(handler: Parameters<typeof startCannedServer>[0]) {
  const started = await startCannedServer(handler);
  closers.push(started.close);
  return started;
}

const generateCalls = (calls: CannedCall[]) => calls.filter((call) => call.path === "/generate");
const fastRetry = { limit: 3, backoffMs: 1, maxBackoffMs: 5 };

describe("createSglangClient /generate", () => {
  it("sends the body bytes JSON.stringify gives, for arrays and Int32Arrays, streamed or not", async () => {
    const sglang = await server((_call, response) =>
      json(response, 200, {
        text: "",
        output_ids: [7],
        meta_info: {
          id: "r",
          finish_reason: { type: "stop" },
          prompt_tokens: 3,
          completion_tokens: 1,
          cached_tokens: 0,
          output_token_logprobs: [[-0.5, 7, null]],
        },
      }),
    );
    const client = createSglangClient({ baseUrl: sglang.url });
    const sampling = { maxNewTokens: 4, temperature: 1, stopTokenIds: [151645] };
    await client.generate({ rid: "rid-ü", inputIds: Int32Array.from([151644, 0, 9]), sampling });
    await client.generate({ rid: "rid-2", inputIds: [151644, 0, 9], sampling, returnLogprob: false });
    const texts = generateCalls(sglang.calls).map((call) => call.text);
    expect(texts).toEqual([
      '{"rid":"rid-ü","input_ids":[151644,0,9],"sampling_params":{"max_new_tokens":4,"temperature":1,"stop_token_ids":[151645],"skip_special_tokens":false,"no_stop_trim":true},"return_logprob":true}',
      '{"rid":"rid-2","input_ids":[151644,0,9],"sampling_params":{"max_new_tokens":4,"temperature":1,"stop_token_ids":[151645],"skip_special_tokens":false,"no_stop_trim":true},"return_logprob":false}',
    ]);
  });

  it("should never retry /generate after a 503 and type the error", async () => {
    const sglang = await server((_call, response) => json(response, 503, { error: { message: "busy" } }));
    const client = createSglangClient({ baseUrl: sglang.url, controlRetry: fastRetry });
    const error = await client.generate({ inputIds: [1, 2, 3] }).catch((caught: unknown) => caught);
    expect(SglangServerError.isInstance(error)).toBe(true);
    expect((error as SglangServerError).status).toBe(503);
    expect((error as SglangServerError).url).toBe(sglang.url);
    expect(generateCalls(sglang.calls)).toHaveLength(1);
  });

  it("should keep the engine's Retry-After on a 503 and a 429 (streamed and not)", async () => {
    const sglang = await server((call, response) => {
      const status = (call.body as { input_ids: number[] }).input_ids[0] === 1 ? 503 : 429;
      response.writeHead(status, { "content-type": "application/json", "retry-after": "4" });
      response.end(JSON.stringify({ error: { message: "busy" } }));
    });
    const client = createSglangClient({ baseUrl: sglang.url });
    const unavailable = await client.generate({ inputIds: [1] }).catch((caught: unknown) => caught);
    expect(SglangServerError.isInstance(unavailable)).toBe(true);
    expect((unavailable as SglangServerError).retryAfterSeconds).toBe(4);
    const overloaded = await client.generate({ inputIds: [2] }).catch((caught: unknown) => caught);
    expect(SglangApiError.isInstance(overloaded) && !SglangServerError.isInstance(overloaded)).toBe(true);
    expect((overloaded as SglangApiError).status).toBe(429);
    expect((overloaded as SglangApiError).retryAfterSeconds).toBe(4);
    const events = client.generateStream({ inputIds: [1] });
    const streamed = await (async () => {
      for await (const _event of events) {
        // no events: the engine refused the request
      }
    })().catch((caught: unknown) => caught);
    expect((streamed as SglangServerError).retryAfterSeconds).toBe(4);
  });

  it("should read Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:10 GMT", now)).toBe(10);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it("should never retry /generate after a connection reset", async () => {
    const sglang = await server((_call, response) => response.socket?.destroy());
    const client = createSglangClient({ baseUrl: sglang.url });
    const error = await client.generate({ inputIds: [1] }).catch((caught: unknown) => caught);
    expect(SglangConnectionError.isInstance(error)).toBe(true);
    expect(generateCalls(sglang.calls)).toHaveLength(1);
  });

  it("should map a context-length 400 to ContextLengthError", async () => {
    const message =
      "Requested token count exceeds the model's maximum context length of 64 tokens. You requested a total of 67 " +
      "tokens: 3 tokens from the input messages and 64 tokens for the completion. Please reduce the number of " +
      "tokens in the input messages or the completion to fit within the limit.";
    const sglang = await server((_call, response) => json(response, 400, { error: { message } }));
    const client = createSglangClient({ baseUrl: sglang.url });
    const error = await client
      .generate({ inputIds: [1, 2, 3], sampling: { maxNewTokens: 64 } })
      .catch((e: unknown) => e);
    expect(ContextLengthError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      promptTokens: 3,
      maxContextLength: 64,
      requestedTokens: 64,
      totalTokens: 67,
    });
  });

  it("should report a refused connection as SglangConnectionError", async () => {
    const sglang = await server(() => undefined);
    const url = sglang.url;
    await sglang.close();
    closers.pop();
    const error = await createSglangClient({ baseUrl: url })
      .generate({ inputIds: [1] })
      .catch((caught: unknown) => caught);
    expect(SglangConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("ECONNREFUSED");
  });

  it("should time out, abort the rid on the server and throw SglangTimeoutError", async () => {
    const sglang = await server((call, response) => {
      if (call.path === "/abort_request") response.end();
      // /generate hangs.
    });
    const client = createSglangClient({ baseUrl: sglang.url, timeoutMs: 50 });
    const error = await client.generate({ inputIds: [1], rid: "timeout-rid-0001" }).catch((e: unknown) => e);
    expect(SglangTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ rid: "timeout-rid-0001", timeoutMs: 50 });
    await expect
      .poll(() => sglang.calls.find((call) => call.path === "/abort_request")?.body)
      .toEqual({
        rid: "timeout-rid-0001",
      });
    expect(client.inFlight()).toEqual([]);
  });

  it("should throw SglangAbortError without sending when the signal is already aborted", async () => {
    const sglang = await server((_call, response) => json(response, 200, reply("x", [1])));
    const error = await createSglangClient({ baseUrl: sglang.url })
      .generate({ inputIds: [1], signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(SglangAbortError.isInstance(error)).toBe(true);
    expect((error as SglangAbortError).sent).toBe(false);
    expect(sglang.calls).toHaveLength(0);
  });

  it("should refuse a custom rid that collides by prefix with one in flight", async () => {
    let release: (() => void) | undefined;
    const sglang = await server((call, response) => {
      const rid = (call.body as { rid: string }).rid;
      release = () => json(response, 200, reply(rid, [7]));
    });
    const client = createSglangClient({ baseUrl: sglang.url });
    const first = client.generate({ inputIds: [1], rid: "req_1" });
    await expect.poll(() => release !== undefined).toBe(true);
    const error = await client.generate({ inputIds: [1], rid: "req_10" }).catch((e: unknown) => e);
    expect(SglangInvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as SglangInvalidArgumentError).field).toBe("rid");
    await expect(client.abort("req_")).rejects.toThrow(/would also abort in-flight "req_1"/);
    release!();
    expect((await first).outputIds).toEqual([7]);
  });

  it("should send the routing key header and pick the same worker per session", async () => {
    const workers = await Promise.all(
      [0, 1, 2].map(() =>
        server((call, response) => json(response, 200, reply((call.body as { rid: string }).rid, [5]))),
      ),
    );
    const client = createSglangClient({ workers: workers.map((worker) => worker.url) });
    for (let turn = 0; turn < 3; turn++) {
      await client.generate({ inputIds: [1, 2], routingKey: "session-42" });
    }
    const used = workers.filter((worker) => worker.calls.length > 0);
    expect(used).toHaveLength(1);
    expect(used[0]!.calls.map((call) => call.headers["x-smg-routing-key"])).toEqual([
      "session-42",
      "session-42",
      "session-42",
    ]);
  });
});

describe("createSglangClient control calls", () => {
  it("should retry a control call on 503 with backoff, then succeed", async () => {
    let attempts = 0;
    const sglang = await server((_call, response) => {
      attempts++;
      if (attempts < 3) json(response, 503, { error: { message: "starting" } });
      else json(response, 200, { message: "Generation paused successfully.", status: "ok" });
    });
    const client = createSglangClient({ baseUrl: sglang.url, controlRetry: fastRetry });
    await client.pauseGeneration({ mode: "retract" });
    expect(sglang.calls.map((call) => [call.path, call.body])).toEqual([
      ["/pause_generation", { mode: "retract" }],
      ["/pause_generation", { mode: "retract" }],
      ["/pause_generation", { mode: "retract" }],
    ]);
  });

  it("should give up after the retry limit with the typed error", async () => {
    const sglang = await server((_call, response) => json(response, 502, "bad gateway"));
    const client = createSglangClient({ baseUrl: sglang.url, controlRetry: { limit: 2, backoffMs: 1 } });
    const error = await client.continueGeneration().catch((e: unknown) => e);
    expect(SglangServerError.isInstance(error)).toBe(true);
    expect(sglang.calls).toHaveLength(3);
  });

  it("should list a router's workers, route generate through it and abort on every worker", async () => {
    const workers = await Promise.all([0, 1].map(() => server((_call, response) => response.end())));
    const router = await server((call, response) => {
      if (call.path === "/workers") {
        json(response, 200, {
          workers: workers.map((worker) => ({ url: worker.url, healthy: true })),
          total: 2,
        });
      } else json(response, 200, reply((call.body as { rid: string }).rid, [9]));
    });
    const client = createSglangClient({ routerUrl: router.url });
    expect(await client.workers()).toEqual(workers.map((worker) => worker.url));
    const result = await client.generate({ inputIds: [1], routingKey: "s-1" });
    expect(result.url).toBe(router.url);
    expect(router.calls.find((call) => call.path === "/generate")?.headers["x-smg-routing-key"]).toBe("s-1");
    const outcomes = await client.abort("0123456789abcdef0123456789abcdef");
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
    for (const worker of workers) {
      expect(worker.calls).toEqual([
        expect.objectContaining({
          path: "/abort_request",
          body: { rid: "0123456789abcdef0123456789abcdef" },
        }),
      ]);
    }
  });

  it("should fall back to the legacy /list_workers and newer /model_info routes", async () => {
    const sglang = await server((call, response) => {
      if (call.path === "/list_workers") json(response, 200, { urls: ["http://127.0.0.1:1"] });
      else if (call.path === "/model_info")
        json(response, 200, { model_path: "Qwen/Qwen3-8B", weight_version: 2 });
      else json(response, 404, { detail: "Not Found" });
    });
    const client = createSglangClient({ routerUrl: sglang.url });
    expect(await client.workers()).toEqual(["http://127.0.0.1:1"]);
    const info = await client.modelInfo({ url: sglang.url });
    expect(info).toMatchObject({ modelPath: "Qwen/Qwen3-8B", weightVersion: "2" });
  });

  it("should report health per server without throwing", async () => {
    const up = await server((_call, response) => response.end());
    const down = await server((_call, response) => json(response, 503, ""));
    const client = createSglangClient({ workers: [up.url, down.url], controlTimeoutMs: 1000 });
    expect(await client.health()).toEqual([
      { url: up.url, role: "worker", ok: true, status: 200 },
      { url: down.url, role: "worker", ok: false, status: 503, error: "503 (empty body)" },
    ]);
  });
});
