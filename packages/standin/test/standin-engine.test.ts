import { generateRequestSchema, generateResponseSchema } from "@relax/sglang/internal";
import { afterEach, describe, expect, it } from "vitest";
import {
  createStandinEngine,
  type StandinEngine,
  type StandinEngineOptions,
  scriptedPolicy,
} from "../src/index";
import {
  collectSse,
  computeStandinLogprobs,
  constantPolicy,
  type StandinPolicyRequest,
} from "../src/testing/index";
import { chatPrompt, IM_END, qwen3Tokenizer } from "./support/qwen3-tokenizer";

const tokenizer = await qwen3Tokenizer();
const engines: StandinEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});

async function start(options: Partial<StandinEngineOptions> & Pick<StandinEngineOptions, "policy">) {
  const engine = createStandinEngine({ tokenizer, seed: 7, ...options });
  engines.push(engine);
  await engine.listen();
  return engine;
}

const prompt = tokenizer.encode(chatPrompt("Say hi"));

async function post(engine: StandinEngine, path: string, body: unknown) {
  const response = await fetch(`${engine.url}${path}`, { method: "POST", body: JSON.stringify(body) });
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

describe("stand-in /generate wire format", () => {
  it("should answer SGLang's JSON shape with exact ids, logprob triples and counters", async () => {
    const engine = await start({ policy: constantPolicy("Hi!") });
    const { status, text } = await post(engine, "/generate", {
      rid: "rid-1",
      input_ids: prompt,
      sampling_params: { max_new_tokens: 16, skip_special_tokens: false, no_stop_trim: true },
      return_logprob: true,
    });
    expect(status).toBe(200);
    const outputIds = [...tokenizer.encode("Hi!"), IM_END];
    const logprobs = computeStandinLogprobs({ seed: 7, inputIds: prompt, outputIds });
    expect(JSON.parse(text)).toEqual({
      text: "Hi!<|im_end|>",
      output_ids: outputIds,
      meta_info: {
        id: "rid-1",
        finish_reason: { type: "stop", matched: IM_END },
        prompt_tokens: prompt.length,
        completion_tokens: outputIds.length,
        cached_tokens: 0,
        weight_version: "default",
        input_token_logprobs: [],
        output_token_logprobs: outputIds.map((id, index) => [logprobs[index], id, null]),
        e2e_latency: expect.any(Number),
      },
    });
  });

  it("should trim the matched stop from text only, with SGLang's defaults", async () => {
    const engine = await start({ policy: constantPolicy("The answer is 4. More.") });
    const tokenStop = JSON.parse(
      (await post(engine, "/generate", { input_ids: prompt, sampling_params: {} })).text,
    );
    expect(tokenStop.text).toBe("The answer is 4. More.");
    expect(tokenStop.output_ids.at(-1)).toBe(IM_END);
    expect(tokenStop.meta_info.output_token_logprobs).toBeUndefined();
    const stringStop = JSON.parse(
      (await post(engine, "/generate", { input_ids: prompt, sampling_params: { stop: "is 4" } })).text,
    );
    expect(stringStop.text).toBe("The answer ");
    expect(stringStop.meta_info.finish_reason).toEqual({ type: "stop", matched: "is 4" });
    expect(tokenizer.decode(stringStop.output_ids)).toBe("The answer is 4");
  });

  it("should write SGLang's error bodies byte for byte", async () => {
    const engine = await start({ policy: constantPolicy("x"), contextLength: 20 });
    expect(
      await post(engine, "/generate", { input_ids: prompt, sampling_params: { max_new_tokens: 10 } }),
    ).toEqual({
      status: 400,
      type: "application/json",
      text:
        '{"error":{"message":"Requested token count exceeds the model\'s maximum context length of 20 tokens. ' +
        `You requested a total of ${prompt.length + 10} tokens: ${prompt.length} tokens from the input messages and 10 tokens ` +
        'for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit."}}',
    });
    const long = Array.from({ length: 20 }, () => 1);
    expect((await post(engine, "/generate", { input_ids: long })).text).toBe(
      '{"error":{"message":"The input (20 tokens) is longer than the model\'s context length (20 tokens)."}}',
    );
    expect((await post(engine, "/generate", { sampling_params: {} })).text).toBe(
      '{"error":{"message":"Either text, input_ids or input_embeds should be provided."}}',
    );
    expect((await post(engine, "/generate", { input_ids: [[1, 2], [3]] })).status).toBe(400);
    const unknown = await fetch(`${engine.url}/v1/unknown`);
    expect([unknown.status, await unknown.text()]).toEqual([404, '{"detail":"Not Found"}']);
  });

  it("should reject a duplicate in-flight rid like SGLang", async () => {
    const engine = await start({ policy: constantPolicy("one two three four five six"), tokenLatencyMs: 2 });
    const first = post(engine, "/generate", { rid: "dup", input_ids: prompt });
    await engine.whenGenerated({ rid: "dup", tokens: 1 });
    expect((await post(engine, "/generate", { rid: "dup", input_ids: prompt })).text).toBe(
      '{"error":{"message":"Duplicate request ID detected: dup"}}',
    );
    expect((await first).status).toBe(200);
  });

  it("should accept text input, tokenising it like SGLang", async () => {
    const engine = await start({ policy: constantPolicy("ok") });
    const body = JSON.parse((await post(engine, "/generate", { text: chatPrompt("Say hi") })).text);
    expect(body.meta_info.prompt_tokens).toBe(prompt.length);
    expect(engine.calls[0]!.body).toEqual({ text: chatPrompt("Say hi") });
  });

  it("should report prompt logprobs that equal the earlier turn's output logprobs", async () => {
    const engine = await start({ policy: scriptedPolicy(["First reply.", "Second."]) });
    const first = JSON.parse(
      (await post(engine, "/generate", { input_ids: prompt, return_logprob: true })).text,
    );
    const followUp = [...prompt, ...first.output_ids];
    const second = JSON.parse(
      (await post(engine, "/generate", { input_ids: followUp, return_logprob: true, logprob_start_len: 0 }))
        .text,
    );
    const promptTriples = second.meta_info.input_token_logprobs as [number | null, number, null][];
    expect(promptTriples).toHaveLength(followUp.length);
    expect(promptTriples[0]).toEqual([null, prompt[0], null]);
    expect(promptTriples.slice(prompt.length)).toEqual(first.meta_info.output_token_logprobs);
  });

  it("should put token text in the triples with return_text_in_logprobs", async () => {
    const engine = await start({ policy: constantPolicy("Hi") });
    const body = JSON.parse(
      (
        await post(engine, "/generate", {
          input_ids: prompt,
          return_logprob: true,
          return_text_in_logprobs: true,
        })
      ).text,
    );
    expect(body.meta_info.output_token_logprobs.map((triple: unknown[]) => triple[2])).toEqual([
      "Hi",
      "<|im_end|>",
    ]);
  });

  it("should report weight_versions spans across a label change mid-request", async () => {
    const engine = await start({
      policy: constantPolicy("a b c d e f"),
      tokenLatencyMs: 2,
      weightVersionSpans: true,
    });
    const pending = post(engine, "/generate", { input_ids: prompt });
    await engine.whenGenerated({ tokens: 2 });
    await post(engine, "/update_weight_version", { new_version: "v2", abort_all_requests: false });
    const body = JSON.parse((await pending).text);
    const spans = body.meta_info.weight_versions as { version: string; start: number; end: number }[];
    expect(spans.map((span) => span.version)).toEqual(["default", "v2"]);
    expect(spans[0]!.start).toBe(0);
    expect(spans[0]!.end).toBe(spans[1]!.start);
    expect(spans[1]!.end).toBe(body.output_ids.length);
    expect(body.meta_info.weight_version).toBe("v2");
  });
});

describe("stand-in replies against the client's wire schemas", () => {
  it("should only write bodies and chunks that satisfy generateResponseSchema", async () => {
    const engine = await start({ policy: constantPolicy("a b c d e f g h i j"), tokenLatencyMs: 1 });
    const bodies: unknown[] = [];
    const request = { input_ids: prompt, return_logprob: true, sampling_params: { max_new_tokens: 4 } };
    expect(generateRequestSchema.safeParse(request).success).toBe(true);
    bodies.push(JSON.parse((await post(engine, "/generate", request)).text));
    bodies.push(JSON.parse((await post(engine, "/generate", { ...request, logprob_start_len: 0 })).text));
    const streamed = await fetch(`${engine.url}/generate`, {
      method: "POST",
      body: JSON.stringify({ ...request, stream: true }),
    });
    for (const event of (await collectSse(streamed)).slice(0, -1)) bodies.push(JSON.parse(event.data));
    const aborted = post(engine, "/generate", { input_ids: prompt, rid: "to-abort", sampling_params: {} });
    await engine.whenGenerated({ rid: "to-abort", tokens: 1 });
    engine.abort("to-abort");
    bodies.push(JSON.parse((await aborted).text));
    expect(bodies.length).toBeGreaterThan(5);
    for (const body of bodies) expect(generateResponseSchema.safeParse(body).error).toBeUndefined();
  });
});

describe("stand-in /generate streaming", () => {
  it("should stream cumulative chunks, finish on the last one and end with [DONE]", async () => {
    const engine = await start({ policy: constantPolicy("One two three") });
    const response = await fetch(`${engine.url}/generate`, {
      method: "POST",
      body: JSON.stringify({ input_ids: prompt, stream: true, return_logprob: true }),
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const events = await collectSse(response);
    expect(events.at(-1)).toEqual({ data: "[DONE]" });
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data));
    const expected = [...tokenizer.encode("One two three"), IM_END];
    expect(chunks.map((chunk) => chunk.output_ids)).toEqual([
      expected.slice(0, 1),
      expected.slice(0, 2),
      expected.slice(0, 3),
      expected,
    ]);
    expect(chunks.map((chunk) => chunk.meta_info.finish_reason)).toEqual([
      null,
      null,
      null,
      { type: "stop", matched: IM_END },
    ]);
    expect(chunks.map((chunk) => "e2e_latency" in chunk.meta_info)).toEqual([false, false, false, true]);
    expect(chunks.at(-1).meta_info.output_token_logprobs).toHaveLength(4);
  });

  it("should stream deltas with --incremental-streaming-output and honour stream_interval", async () => {
    const engine = await start({ policy: constantPolicy("One two three"), incrementalStreamingOutput: true });
    const response = await fetch(`${engine.url}/generate`, {
      method: "POST",
      body: JSON.stringify({ input_ids: prompt, stream: true, sampling_params: { stream_interval: 2 } }),
    });
    const chunks = (await collectSse(response)).slice(0, -1).map((event) => JSON.parse(event.data));
    const expected = [...tokenizer.encode("One two three"), IM_END];
    expect(chunks.map((chunk) => chunk.output_ids)).toEqual([expected.slice(0, 2), expected.slice(2, 4)]);
    expect(chunks.map((chunk) => chunk.text).join("")).toBe("One two three");
  });

  it("should send a validation error as an error event inside a 200 stream", async () => {
    const engine = await start({ policy: constantPolicy("x"), contextLength: 8 });
    const response = await fetch(`${engine.url}/generate`, {
      method: "POST",
      body: JSON.stringify({ input_ids: prompt, stream: true }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(
      `data: {"error":{"message":"The input (${prompt.length} tokens) is longer than the model's context length (8 tokens)."}}\n\ndata: [DONE]\n\n`,
    );
  });
});

describe("stand-in control routes and policy plumbing", () => {
  it("should abort by prefix, abort all, and ignore an empty rid", async () => {
    const engine = await start({ policy: constantPolicy("a b c d e f g h i j k l"), tokenLatencyMs: 2 });
    const a = post(engine, "/generate", { rid: "sess-a", input_ids: prompt });
    const b = post(engine, "/generate", { rid: "sess-b", input_ids: prompt });
    await engine.until((requests) => requests.length === 2);
    expect(await post(engine, "/abort_request", { rid: "" })).toEqual({ status: 200, type: null, text: "" });
    expect(engine.requests()).toHaveLength(2);
    await post(engine, "/abort_request", { abort_all: true });
    const bodies = await Promise.all([a, b]).then((all) => all.map((item) => JSON.parse(item.text)));
    expect(bodies.map((body) => body.meta_info.finish_reason)).toEqual([
      { type: "abort", message: "Aborted", status_code: null, err_type: null },
      { type: "abort", message: "Aborted", status_code: null, err_type: null },
    ]);
  });

  it("should refuse /flush_cache while busy and flush when idle", async () => {
    const engine = await start({ policy: constantPolicy("a b c d e f g h"), tokenLatencyMs: 2 });
    const pending = post(engine, "/generate", { input_ids: prompt });
    await engine.whenGenerated({ tokens: 1 });
    expect(await post(engine, "/flush_cache", {})).toEqual({
      status: 400,
      type: "application/json",
      text: '{"error":{"message":"Cache not flushed because there are pending requests."}}',
    });
    await pending;
    const flushed = await fetch(`${engine.url}/flush_cache`);
    expect([flushed.status, await flushed.text()]).toEqual([200, "Cache flushed.\n"]);
  });

  it("should answer pause, continue and weight updates with SGLang's bodies", async () => {
    const engine = await start({ policy: constantPolicy("x") });
    expect(JSON.parse((await post(engine, "/pause_generation", { mode: "retract" })).text)).toEqual({
      message: "Generation paused successfully.",
      status: "ok",
    });
    expect(JSON.parse((await post(engine, "/continue_generation", {})).text)).toEqual({
      message: "Generation continued successfully.",
      status: "ok",
    });
    expect(JSON.parse((await post(engine, "/update_weight_version", { new_version: "7" })).text)).toEqual({
      success: true,
      message: "Weight version updated to 7",
      new_version: "7",
    });
    expect(
      JSON.parse(
        (await post(engine, "/update_weights_from_disk", { model_path: "/x", weight_version: "8" })).text,
      ),
    ).toEqual({
      success: true,
      message: "Succeeded to update model weights. (stand-in: only the weight version label changed)",
      num_paused_requests: 0,
    });
    const info = await (await fetch(`${engine.url}/model_info`)).json();
    expect(info).toEqual({
      model_path: "relax-standin (not a model)",
      tokenizer_path: "relax-standin-tokenizer",
      is_generation: true,
      preferred_sampling_params: null,
      weight_version: "8",
      has_image_understanding: false,
      has_audio_understanding: false,
      model_type: "relax-standin",
      architectures: ["RelaxStandinEngine"],
    });
    expect((await post(engine, "/pause_generation", { mode: "sideways" })).status).toBe(400);
  });

  it("should give the policy the decoded prompt, sampling, headers and request index", async () => {
    const seen: Omit<StandinPolicyRequest, "tokenizer" | "signal">[] = [];
    const engine = await start({
      policy: (request) => {
        seen.push({
          rid: request.rid,
          inputIds: request.inputIds,
          promptText: request.promptText,
          sampling: request.sampling,
          requestIndex: request.requestIndex,
          headers: { routing: request.headers["x-smg-routing-key"] ?? "" },
        });
        return { tokenIds: [9707] };
      },
    });
    await fetch(`${engine.url}/generate`, {
      method: "POST",
      headers: { "X-SMG-Routing-Key": "s-9" },
      body: JSON.stringify({ rid: "r-9", input_ids: prompt, sampling_params: { temperature: 0.6 } }),
    });
    expect(seen).toEqual([
      {
        rid: "r-9",
        inputIds: prompt,
        promptText: chatPrompt("Say hi"),
        sampling: { temperature: 0.6 },
        requestIndex: 0,
        headers: { routing: "s-9" },
      },
    ]);
  });

  it("should answer 500 naming the rid when the policy fails", async () => {
    const engine = await start({ policy: scriptedPolicy([]) });
    expect(await post(engine, "/generate", { rid: "r-x", input_ids: prompt })).toEqual({
      status: 500,
      type: "application/json",
      text: '{"error":{"message":"stand-in policy failed: scriptedPolicy: no scripted reply left for request r-x"}}',
    });
  });

  it("should answer 500 when the policy returns ids outside the vocabulary", async () => {
    const engine = await start({ policy: constantPolicy({ tokenIds: [5, 999_999] }) });
    expect((await post(engine, "/generate", { input_ids: prompt })).text).toBe(
      '{"error":{"message":"stand-in policy failed: tokenIds[1] = 999999 is not a token id of the tokenizer"}}',
    );
  });

  it("should abort a request whose client disconnected", async () => {
    const engine = await start({
      policy: constantPolicy("a b c d e f g h i j k l m n o p"),
      tokenLatencyMs: 5,
    });
    const controller = new AbortController();
    const request = fetch(`${engine.url}/generate`, {
      method: "POST",
      body: JSON.stringify({ input_ids: prompt }),
      signal: controller.signal,
    }).catch(() => "disconnected");
    await engine.whenGenerated({ tokens: 2 });
    controller.abort();
    expect(await request).toBe("disconnected");
    await engine.until((requests) => requests.length === 0);
    expect(engine.requests()).toEqual([]);
  });
});
