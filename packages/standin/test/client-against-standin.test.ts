import {
  ContextLengthError,
  createSglangClient,
  SglangConnectionError,
  SglangServerError,
  SglangTimeoutError,
} from "@relax/sglang";
import { afterEach, describe, expect, it } from "vitest";
import {
  createStandinEngine,
  type StandinEngine,
  type StandinEngineOptions,
  scriptedPolicy,
} from "../src/index";
import { computeStandinLogprobs, constantPolicy } from "../src/testing/index";
import { chatPrompt, ENDOFTEXT, IM_END, qwen3Tokenizer } from "./support/qwen3-tokenizer";

const tokenizer = await qwen3Tokenizer();
const engines: StandinEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});

async function start(options: Partial<StandinEngineOptions> & Pick<StandinEngineOptions, "policy">) {
  const engine = createStandinEngine({ tokenizer, seed: 7, ...options });
  engines.push(engine);
  const url = await engine.listen();
  return { engine, client: createSglangClient({ baseUrl: url, controlRetry: { limit: 3, backoffMs: 1 } }) };
}

const prompt = tokenizer.encode(chatPrompt("What is 2+2?"));
const generateCalls = (engine: StandinEngine) => engine.calls.filter((call) => call.path === "/generate");
const longReply = Array.from({ length: 120 }, (_, index) => `word${index}`).join(" ");

describe("client against the stand-in: token exactness", () => {
  it("should return the exact ids (stop token included) and the seeded logprobs", async () => {
    const { client } = await start({ policy: scriptedPolicy(["2+2 equals 4."]) });
    const result = await client.generate({
      inputIds: prompt,
      sampling: { maxNewTokens: 64, temperature: 0 },
    });
    const expectedIds = [...tokenizer.encode("2+2 equals 4."), IM_END];
    expect(expectedIds).toEqual([17, 10, 17, 16819, 220, 19, 13, IM_END]);
    expect(result.outputIds).toEqual(expectedIds);
    expect(result.outputLogprobs).toEqual(
      computeStandinLogprobs({ seed: 7, inputIds: prompt, outputIds: expectedIds }),
    );
    for (const logprob of result.outputLogprobs) expect(logprob).toBeLessThanOrEqual(0);
    expect(result).toMatchObject({
      finishReason: { type: "stop", matched: IM_END },
      promptTokens: prompt.length,
      completionTokens: expectedIds.length,
      cachedTokens: 0,
      weightVersion: "default",
    });
    expect(result.e2eLatencySeconds).toBeGreaterThanOrEqual(0);
  });

  it("should append the first stop_token_ids entry and report it as matched", async () => {
    const { client } = await start({ policy: constantPolicy("Hi") });
    const result = await client.generate({ inputIds: prompt, sampling: { stopTokenIds: [ENDOFTEXT] } });
    expect(result.outputIds).toEqual([...tokenizer.encode("Hi"), ENDOFTEXT]);
    expect(result.finishReason).toEqual({ type: "stop", matched: ENDOFTEXT });
  });

  it("should stop at a stop token inside the policy output, keeping it", async () => {
    const { client } = await start({ policy: constantPolicy("Done.<|im_end|>never sent") });
    const result = await client.generate({ inputIds: prompt });
    expect(result.outputIds).toEqual([...tokenizer.encode("Done."), IM_END]);
    expect(result.finishReason).toEqual({ type: "stop", matched: IM_END });
  });

  it("should finish with length at max_new_tokens", async () => {
    const { client } = await start({ policy: constantPolicy("one two three four five") });
    const result = await client.generate({ inputIds: prompt, sampling: { maxNewTokens: 3 } });
    expect(result.outputIds).toEqual(tokenizer.encode("one two three four five").slice(0, 3));
    expect(result.finishReason).toEqual({ type: "length", length: 3 });
  });

  it("should stop on a stop string, keeping the token that completed it", async () => {
    const { client } = await start({ policy: constantPolicy("The answer is 4. Extra text.") });
    const result = await client.generate({ inputIds: prompt, sampling: { stop: ["is 4"] } });
    expect(result.finishReason).toEqual({ type: "stop", matched: "is 4" });
    expect(tokenizer.decode(result.outputIds)).toBe("The answer is 4");
  });

  it("should report the radix-cache prefix of a follow-up turn", async () => {
    const { client } = await start({ policy: scriptedPolicy(["First.", "Second."]) });
    const first = await client.generate({ inputIds: prompt });
    const followUp = [
      ...prompt,
      ...first.outputIds,
      ...tokenizer.encode("\n<|im_start|>user\nMore<|im_end|>\n"),
    ];
    const second = await client.generate({ inputIds: followUp });
    // SGLang caches (prompt + output)[:-1] of a finished request.
    expect(second.cachedTokens).toBe(prompt.length + first.outputIds.length - 1);
  });
});

describe("client against the stand-in: aborts", () => {
  it("should return the partial ids when the signal aborts mid-generation", async () => {
    const { engine, client } = await start({ policy: constantPolicy(longReply), tokenLatencyMs: 2 });
    const controller = new AbortController();
    const pending = client.generate({
      inputIds: prompt,
      signal: controller.signal,
      sampling: { maxNewTokens: 500 },
    });
    await engine.whenGenerated({ tokens: 5 });
    controller.abort();
    const result = await pending;
    const full = tokenizer.encode(longReply);
    expect(result.finishReason).toEqual({ type: "abort", message: "Aborted" });
    expect(result.outputIds.length).toBeGreaterThanOrEqual(5);
    expect(result.outputIds.length).toBeLessThan(full.length);
    expect(result.outputIds).toEqual(full.slice(0, result.outputIds.length));
    expect(result.outputLogprobs).toEqual(
      computeStandinLogprobs({ seed: 7, inputIds: prompt, outputIds: result.outputIds }),
    );
    expect(engine.calls.filter((call) => call.path === "/abort_request").map((call) => call.body)).toEqual([
      { rid: result.rid },
    ]);
  });

  it("should abort only the aborted session's request (fixed-length rids are prefix-safe)", async () => {
    const { engine, client } = await start({ policy: constantPolicy(longReply), tokenLatencyMs: 2 });
    const sessionA = new AbortController();
    const a = client.generate({ inputIds: prompt, signal: sessionA.signal, sampling: { maxNewTokens: 40 } });
    const b = client.generate({ inputIds: prompt, sampling: { maxNewTokens: 40 } });
    await engine.until(
      (requests) => requests.length === 2 && requests.every((request) => request.outputTokens >= 2),
    );
    sessionA.abort();
    const [resultA, resultB] = await Promise.all([a, b]);
    expect(resultA.finishReason.type).toBe("abort");
    expect(resultB.finishReason).toEqual({ type: "length", length: 40 });
    expect(resultA.rid).toHaveLength(32);
    expect(resultB.rid).toHaveLength(32);
  });

  it("should show why: SGLang's prefix match aborts req_10 when req_1 is aborted", async () => {
    const { engine } = await start({ policy: constantPolicy(longReply), tokenLatencyMs: 2 });
    const send = (rid: string) =>
      fetch(`${engine.url}/generate`, {
        method: "POST",
        body: JSON.stringify({ rid, input_ids: prompt, sampling_params: { max_new_tokens: 40 } }),
      }).then((response) => response.json() as Promise<{ meta_info: { finish_reason: { type: string } } }>);
    const one = send("req_1");
    const ten = send("req_10");
    const two = send("req_2");
    await engine.until(
      (requests) => requests.length === 3 && requests.every((request) => request.outputTokens >= 1),
    );
    await fetch(`${engine.url}/abort_request`, { method: "POST", body: JSON.stringify({ rid: "req_1" }) });
    const finishes = (await Promise.all([one, ten, two])).map((body) => body.meta_info.finish_reason.type);
    expect(finishes).toEqual(["abort", "abort", "length"]);
  });

  it("should return an empty abort for a request aborted in the waiting queue", async () => {
    const { engine, client } = await start({
      policy: constantPolicy(longReply),
      tokenLatencyMs: 2,
      maxConcurrency: 1,
    });
    const running = client.generate({ inputIds: prompt, sampling: { maxNewTokens: 20 } });
    const controller = new AbortController();
    const waiting = client.generate({ inputIds: prompt, signal: controller.signal });
    await engine.until((requests) => requests.some((request) => request.state === "waiting"));
    controller.abort();
    const result = await waiting;
    expect(result.outputIds).toEqual([]);
    expect(result.finishReason).toEqual({ type: "abort", message: "Aborted" });
    expect((await running).finishReason.type).toBe("length");
  });

  it("should abort everything in flight on pause_generation(abort) and hold new work until continue", async () => {
    const { engine, client } = await start({ policy: constantPolicy(longReply), tokenLatencyMs: 2 });
    const inFlight = client.generate({ inputIds: prompt, sampling: { maxNewTokens: 100 } });
    await engine.whenGenerated({ tokens: 3 });
    await client.pauseGeneration({ mode: "abort" });
    const partial = await inFlight;
    expect(partial.finishReason.type).toBe("abort");
    expect(partial.outputIds.length).toBeGreaterThanOrEqual(3);
    const held = client.generate({ inputIds: prompt, sampling: { maxNewTokens: 4 } });
    // Held before the scheduler, as SGLang's tokenizer manager does (server_info counts it apart).
    while (
      ((await client.serverInfo()).raw as { internal_states?: { held_at_pause?: number }[] })
        .internal_states?.[0]?.held_at_pause !== 1
    )
      await new Promise((resolve) => setTimeout(resolve, 2));
    expect(engine.requests()).toEqual([]);
    await client.continueGeneration();
    expect((await held).finishReason).toEqual({ type: "length", length: 4 });
  });

  it("should freeze in place and resume the same request on continue", async () => {
    const { engine, client } = await start({ policy: constantPolicy("a b c d e f g h"), tokenLatencyMs: 1 });
    const pending = client.generate({ inputIds: prompt });
    await engine.whenGenerated({ tokens: 2 });
    await client.pauseGeneration({ mode: "in_place" });
    const frozen = engine.requests()[0]!.outputTokens;
    await client.continueGeneration();
    const result = await pending;
    expect(frozen).toBeGreaterThanOrEqual(2);
    expect(result.outputIds).toEqual([...tokenizer.encode("a b c d e f g h"), IM_END]);
  });
});

describe("client against the stand-in: routing, errors, retries", () => {
  it("should send the routing header on /generate", async () => {
    const { engine, client } = await start({ policy: constantPolicy("ok") });
    await client.generate({ inputIds: prompt, routingKey: "session-7" });
    expect(generateCalls(engine)[0]!.headers["x-smg-routing-key"]).toBe("session-7");
  });

  it("should map both context-length wordings to ContextLengthError with the numbers", async () => {
    const { client } = await start({ policy: constantPolicy("ok"), contextLength: 64 });
    const budget = await client
      .generate({ inputIds: prompt, sampling: { maxNewTokens: 60 } })
      .catch((e: unknown) => e);
    expect(ContextLengthError.isInstance(budget)).toBe(true);
    expect(budget).toMatchObject({
      status: 400,
      promptTokens: prompt.length,
      maxContextLength: 64,
      requestedTokens: 60,
      totalTokens: prompt.length + 60,
    });
    const long = Array.from({ length: 70 }, () => 9707);
    const input = await client.generate({ inputIds: long }).catch((e: unknown) => e);
    expect(ContextLengthError.isInstance(input)).toBe(true);
    expect(input).toMatchObject({ promptTokens: 70, maxContextLength: 64 });
    expect((input as Error).message).toBe(
      "400 The input (70 tokens) is longer than the model's context length (64 tokens).",
    );
  });

  it("should not retry /generate after an injected 503", async () => {
    const { engine, client } = await start({
      policy: constantPolicy("ok"),
      faults: [{ fault: { type: "http-error", status: 503 }, times: 5 }],
    });
    const error = await client.generate({ inputIds: prompt }).catch((e: unknown) => e);
    expect(SglangServerError.isInstance(error)).toBe(true);
    expect(generateCalls(engine)).toHaveLength(1);
  });

  it("should retry control calls through injected 503s", async () => {
    const { engine, client } = await start({
      policy: constantPolicy("ok"),
      faults: [{ path: "/update_weight_version", fault: { type: "http-error", status: 503 }, times: 2 }],
    });
    await client.updateWeightVersion({ newVersion: "v2" });
    expect(engine.calls.filter((call) => call.path === "/update_weight_version")).toHaveLength(3);
    expect(engine.weightVersion).toBe("v2");
  });

  it("should type a connection reset and a reset in the middle of generation", async () => {
    const { engine, client } = await start({
      policy: constantPolicy(longReply),
      faults: [{ fault: { type: "reset" } }, { fault: { type: "reset-after-tokens", tokens: 3 }, after: 1 }],
    });
    const reset = await client.generate({ inputIds: prompt }).catch((e: unknown) => e);
    expect(SglangConnectionError.isInstance(reset)).toBe(true);
    const midway = await client.generate({ inputIds: prompt }).catch((e: unknown) => e);
    expect(SglangConnectionError.isInstance(midway)).toBe(true);
    await engine.until((requests) => requests.length === 0);
    expect(generateCalls(engine)).toHaveLength(2);
  });

  it("should time out on a hung engine and send the abort", async () => {
    const { engine } = await start({ policy: constantPolicy("ok"), faults: [{ fault: { type: "hang" } }] });
    const client = createSglangClient({ baseUrl: engine.url, timeoutMs: 100 });
    const error = await client
      .generate({ inputIds: prompt, rid: "0000000000000000000000000000abcd" })
      .catch((e) => e);
    expect(SglangTimeoutError.isInstance(error)).toBe(true);
    await expect
      .poll(() => engine.calls.filter((call) => call.path === "/abort_request").map((call) => call.body))
      .toEqual([{ rid: "0000000000000000000000000000abcd" }]);
  });
});

describe("client against the stand-in: control endpoints and streaming", () => {
  it("should describe itself as a stand-in, not a model", async () => {
    const { client } = await start({ policy: constantPolicy("ok"), contextLength: 4096 });
    expect(await client.modelInfo()).toMatchObject({
      modelPath: "relax-standin (not a model)",
      isGeneration: true,
      weightVersion: "default",
    });
    const info = await client.serverInfo();
    expect(info.contextLength).toBe(4096);
    expect(info.version).toContain("a stand-in for SGLang, not a model");
    expect((await client.health()).map((entry) => entry.ok)).toEqual([true]);
    expect((await client.health({ generate: true })).map((entry) => entry.ok)).toEqual([true]);
  });

  it("should change only the weight label on update_weights_from_disk, and the logprobs with it", async () => {
    const { client } = await start({ policy: scriptedPolicy(["same", "same"]) });
    const before = await client.generate({ inputIds: prompt });
    await client.updateWeightsFromDisk({ modelPath: "/ckpt/step-2", weightVersion: "step-2" });
    const after = await client.generate({ inputIds: prompt });
    expect(after.outputIds).toEqual(before.outputIds);
    expect(after.weightVersion).toBe("step-2");
    expect(after.cachedTokens).toBe(0);
    expect(after.outputLogprobs).toEqual(
      computeStandinLogprobs({
        seed: 7,
        weightVersion: "step-2",
        inputIds: prompt,
        outputIds: after.outputIds,
      }),
    );
    expect(after.outputLogprobs).not.toEqual(before.outputLogprobs);
    await client.flushCache();
  });

  it.each([false, true])(
    "should stream the same tokens as the JSON reply (incremental=%s)",
    async (incremental) => {
      const { client } = await start({
        policy: constantPolicy("Streaming works, token by token."),
        incrementalStreamingOutput: incremental,
      });
      const json = await client.generate({ inputIds: prompt, rid: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1" });
      const deltas: number[][] = [];
      let finish: unknown;
      for await (const event of client.generateStream({
        inputIds: prompt,
        rid: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2",
      })) {
        if (event.type === "delta") deltas.push(event.outputIds);
        else finish = event.result;
      }
      expect(deltas.length).toBeGreaterThan(3);
      expect(deltas.flat()).toEqual(json.outputIds);
      expect(finish).toMatchObject({
        outputIds: json.outputIds,
        outputLogprobs: json.outputLogprobs,
        finishReason: json.finishReason,
      });
    },
  );

  it("should end an aborted stream with the partial result", async () => {
    const { engine, client } = await start({ policy: constantPolicy(longReply), tokenLatencyMs: 2 });
    const controller = new AbortController();
    const streamed: number[] = [];
    let finish: { outputIds: number[]; finishReason: { type: string } } | undefined;
    for await (const event of client.generateStream({ inputIds: prompt, signal: controller.signal })) {
      if (event.type === "delta") {
        streamed.push(...event.outputIds);
        if (streamed.length >= 4 && !controller.signal.aborted) controller.abort();
      } else finish = event.result;
    }
    expect(finish?.finishReason.type).toBe("abort");
    expect(finish?.outputIds).toEqual(streamed);
    expect(streamed).toEqual(tokenizer.encode(longReply).slice(0, streamed.length));
    expect(engine.requests()).toEqual([]);
  });

  it.each([
    ["break", "break"],
    ["a throw in the loop body", "throw"],
    ["an explicit return()", "return"],
  ] as const)("should abort the rid on the engine when the consumer stops early with %s", async (_, how) => {
    const { engine, client } = await start({ policy: constantPolicy(longReply), tokenLatencyMs: 2 });
    const rid = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb1";
    const stream = client.generateStream({ inputIds: prompt, rid, sampling: { maxNewTokens: 200 } });
    let deltas = 0;
    if (how === "return") {
      const first = await stream.next();
      expect(first.value).toMatchObject({ type: "delta" });
      deltas++;
      await stream.return(undefined);
    } else {
      const consume = async () => {
        for await (const event of stream) {
          expect(event.type).toBe("delta");
          deltas++;
          if (how === "break") break;
          throw new Error("consumer failed");
        }
      };
      if (how === "throw") await expect(consume()).rejects.toThrow("consumer failed");
      else await consume();
    }
    expect(deltas).toBe(1);
    // The abort was sent (and answered) before the loop exit completed: no polling needed.
    const aborts = engine.calls.filter((call) => call.path === "/abort_request");
    expect(aborts.map((call) => call.body)).toEqual([{ rid }]);
    expect(client.inFlight()).toEqual([]);
    await engine.until((requests) => requests.length === 0);
    expect(engine.requests()).toEqual([]);
  });

  it("should not send an abort when the stream ran to its end", async () => {
    const { engine, client } = await start({ policy: constantPolicy("short") });
    for await (const event of client.generateStream({ inputIds: prompt })) void event;
    expect(engine.calls.filter((call) => call.path === "/abort_request")).toEqual([]);
    expect(client.inFlight()).toEqual([]);
  });

  it("should abort everything with abortAll and track requests in flight", async () => {
    const { engine, client } = await start({ policy: constantPolicy(longReply), tokenLatencyMs: 2 });
    const pending = [1, 2].map(() => client.generate({ inputIds: prompt, sampling: { maxNewTokens: 200 } }));
    await engine.until((requests) => requests.length === 2);
    expect(client.inFlight().map((request) => request.url)).toEqual([engine.url, engine.url]);
    expect(await client.abortAll()).toEqual([{ url: engine.url, ok: true }]);
    const results = await Promise.all(pending);
    expect(results.map((result) => result.finishReason.type)).toEqual(["abort", "abort"]);
    expect(client.inFlight()).toEqual([]);
  });

  it("should surface a context-length error inside a stream as ContextLengthError", async () => {
    const { client } = await start({ policy: constantPolicy("ok"), contextLength: 16 });
    const events = client.generateStream({ inputIds: prompt, sampling: { maxNewTokens: 10 } });
    const error = await events.next().catch((e: unknown) => e);
    expect(ContextLengthError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ maxContextLength: 16, requestedTokens: 10 });
  });
});

describe("client against the stand-in: control endpoints on every worker", () => {
  async function startWorkers(count: number, options: Partial<StandinEngineOptions> = {}) {
    const started = await Promise.all(
      Array.from({ length: count }, () =>
        start({ policy: constantPolicy(longReply), tokenLatencyMs: 3, ...options }),
      ),
    );
    const urls = started.map(({ engine }) => engine.url);
    const client = createSglangClient({ workers: urls, controlRetry: { limit: 1, backoffMs: 1 } });
    return { engines: started.map(({ engine }) => engine), urls, client };
  }

  it("should return each worker's update_weights_from_disk answer and change every worker's label", async () => {
    const { engines, urls, client } = await startWorkers(2);
    const outcomes = await client.updateWeightsFromDisk({ modelPath: "/ckpt/9", weightVersion: "step-9" });
    expect(outcomes).toEqual(
      urls.map((url) => ({
        url,
        success: true,
        message: "Succeeded to update model weights. (stand-in: only the weight version label changed)",
        numPausedRequests: 0,
      })),
    );
    expect(engines.map((engine) => engine.weightVersion)).toEqual(["step-9", "step-9"]);
    for (const engine of engines) {
      expect(engine.calls.find((call) => call.path === "/update_weights_from_disk")!.body).toEqual({
        model_path: "/ckpt/9",
        weight_version: "step-9",
      });
    }
  });

  it("should report a worker's refusal and a dead worker per worker instead of throwing", async () => {
    const { engines, urls, client } = await startWorkers(2);
    const frozen = createSglangClient({ baseUrl: urls[1]!, controlRetry: false });
    const pending = frozen.generate({ inputIds: prompt, sampling: { maxNewTokens: 50 } });
    await engines[1]!.whenGenerated({ tokens: 2 });
    await frozen.pauseGeneration({ mode: "in_place" });
    const outcomes = await client.updateWeightsFromDisk({ modelPath: "/ckpt/10", weightVersion: "step-10" });
    expect(outcomes).toEqual([
      {
        url: urls[0],
        success: true,
        message: "Succeeded to update model weights. (stand-in: only the weight version label changed)",
        numPausedRequests: 0,
      },
      {
        url: urls[1],
        success: false,
        message:
          "Cache flush failed after updating weights: 1 requests are paused in place or waiting; send flush_cache: false while generation is paused with mode in_place or retract.",
        numPausedRequests: 0,
      },
    ]);
    expect(engines.map((engine) => engine.weightVersion)).toEqual(["step-10", "default"]);
    const retry = await frozen.updateWeightsFromDisk({
      modelPath: "/ckpt/10",
      weightVersion: "step-10",
      flushCache: false,
    });
    expect(retry.map((outcome) => outcome.success)).toEqual([true]);
    await frozen.continueGeneration();
    expect((await pending).outputIds).toHaveLength(50);

    await engines[0]!.close();
    const down = await client.updateWeightsFromDisk({ modelPath: "/ckpt/11" });
    expect(down[0]).toMatchObject({ url: urls[0], success: false });
    expect(SglangConnectionError.isInstance(down[0]!.error)).toBe(true);
    expect(down[1]).toMatchObject({ url: urls[1], success: true });
    await expect(client.updateWeightsFromDisk({ modelPath: "" })).rejects.toThrow(/modelPath/);
  });

  it("should send abort(rid) to every worker and end the request on the one running it", async () => {
    const { engines, urls, client } = await startWorkers(2);
    const rid = "a".repeat(32);
    const runningOn = createSglangClient({ baseUrl: urls[1]!, controlRetry: false });
    const pending = runningOn.generate({ rid, inputIds: prompt, sampling: { maxNewTokens: 100 } });
    await engines[1]!.whenGenerated({ rid, tokens: 2 });
    const outcomes = await client.abort(rid);
    expect(outcomes).toEqual(urls.map((url) => ({ url, ok: true })));
    for (const engine of engines) {
      expect(engine.calls.filter((call) => call.path === "/abort_request").map((call) => call.body)).toEqual([
        { rid },
      ]);
    }
    const partial = await pending;
    expect(partial.finishReason.type).toBe("abort");
    expect(partial.outputIds.length).toBeGreaterThanOrEqual(2);
  });

  it("should continue an aborted request exactly when resubmitted as prompt + partial output", async () => {
    const { client: reference } = await start({ policy: scriptedPolicy([longReply]) });
    const uninterrupted = await reference.generate({ inputIds: prompt, sampling: { maxNewTokens: 40 } });
    expect(uninterrupted.finishReason).toEqual({ type: "length", length: 40 });

    const { engine, client } = await start({
      policy: scriptedPolicy([longReply, "a different reply"]),
      tokenLatencyMs: 3,
    });
    const controller = new AbortController();
    const pending = client.generate({
      inputIds: prompt,
      sampling: { maxNewTokens: 40 },
      signal: controller.signal,
    });
    await engine.whenGenerated({ tokens: 5 });
    controller.abort();
    const partial = await pending;
    expect(partial.finishReason.type).toBe("abort");
    const emitted = partial.outputIds.length;
    const rest = await client.generate({
      inputIds: [...prompt, ...partial.outputIds],
      sampling: { maxNewTokens: 40 - emitted },
    });
    expect([...partial.outputIds, ...rest.outputIds]).toEqual(uninterrupted.outputIds);
    expect([...partial.outputLogprobs, ...rest.outputLogprobs]).toEqual(uninterrupted.outputLogprobs);
    expect(rest.finishReason).toEqual({ type: "length", length: 40 - emitted });
  });
});
