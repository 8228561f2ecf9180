import { afterEach, describe, expect, it } from "vitest";
import {
  createStandinEngine,
  type StandinEngine,
  type StandinEngineOptions,
  scriptedPolicy,
} from "../src/index";
import { collectSse, computeStandinLogprobs } from "../src/testing/index";
import { chatPrompt, IM_END, qwen3Tokenizer } from "./support/qwen3-tokenizer";

const tokenizer = await qwen3Tokenizer();
const engines: StandinEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});

async function start(options: Partial<StandinEngineOptions> = {}) {
  const engine = createStandinEngine({
    tokenizer,
    seed: 7,
    // A second policy call would answer "second reply": a continuation that reached the policy shows.
    policy: scriptedPolicy([FIRST, "second reply", "third reply"]),
    ...options,
  });
  engines.push(engine);
  await engine.listen();
  return engine;
}

const FIRST = "one two three four five six seven eight nine ten eleven twelve";
const prompt = tokenizer.encode(chatPrompt("Count to twelve"));
const fullIds = [...tokenizer.encode(FIRST), IM_END];

interface Body {
  text: string;
  output_ids: number[];
  meta_info: {
    finish_reason: Record<string, unknown> | null;
    output_token_logprobs: [number, number, null][];
    weight_version: string;
    weight_versions?: { version: string; start: number; end: number }[];
    cached_tokens: number;
    completion_tokens: number;
    num_retractions?: number;
  };
}

async function post(engine: StandinEngine, path: string, body: unknown) {
  const response = await fetch(`${engine.url}${path}`, { method: "POST", body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) };
}

function generate(engine: StandinEngine, body: Record<string, unknown>): Promise<Body> {
  return post(engine, "/generate", { return_logprob: true, ...body }).then((reply) => {
    expect(reply.status).toBe(200);
    return reply.json() as Body;
  });
}

/** A streamed `/generate`: the last (cumulative) chunk. */
async function generateStreamed(engine: StandinEngine, body: Record<string, unknown>): Promise<Body> {
  const response = await fetch(`${engine.url}/generate`, {
    method: "POST",
    body: JSON.stringify({ return_logprob: true, stream: true, ...body }),
  });
  const events = await collectSse(response);
  expect(events.at(-1)).toEqual({ data: "[DONE]" });
  return JSON.parse(events.at(-2)!.data) as Body;
}

async function serverState(engine: StandinEngine) {
  const info = await (await fetch(`${engine.url}/server_info`)).json();
  const { num_running_reqs, num_waiting_reqs, paused } = info.internal_states[0];
  return { running: num_running_reqs, waiting: num_waiting_reqs, paused };
}

const logprobsOf = (body: Body) => body.meta_info.output_token_logprobs.map((triple) => triple[0]);

describe("stand-in exact continuation after an abort", () => {
  for (const streamed of [false, true]) {
    it(`should continue the aborted plan token- and logprob-exactly (${streamed ? "streaming" : "non-streaming"})`, async () => {
      const send = streamed ? generateStreamed : generate;
      const reference = await send(await start(), {
        input_ids: prompt,
        sampling_params: { max_new_tokens: 64 },
      });
      expect(reference.output_ids).toEqual(fullIds);
      expect(reference.meta_info.finish_reason).toEqual({ type: "stop", matched: IM_END });

      const engine = await start({ tokenLatencyMs: 3 });
      const pending = send(engine, {
        rid: "rollout-a",
        input_ids: prompt,
        sampling_params: { max_new_tokens: 64 },
      });
      await engine.whenGenerated({ rid: "rollout-a", tokens: 4 });
      expect((await post(engine, "/abort_request", { rid: "rollout-a" })).status).toBe(200);
      const partial = await pending;
      expect(partial.meta_info.finish_reason).toMatchObject({ type: "abort" });
      const k = partial.output_ids.length;
      expect(k).toBeGreaterThanOrEqual(4);
      expect(k).toBeLessThan(fullIds.length);
      expect(partial.output_ids).toEqual(fullIds.slice(0, k));
      expect(engine.continuationsKept).toBe(1);

      const rest = await send(engine, {
        rid: "rollout-a-2",
        input_ids: [...prompt, ...partial.output_ids],
        sampling_params: { max_new_tokens: 64 - k },
      });
      expect(engine.continuationsKept).toBe(0);
      expect([...partial.output_ids, ...rest.output_ids]).toEqual(reference.output_ids);
      expect([...logprobsOf(partial), ...logprobsOf(rest)]).toEqual(logprobsOf(reference));
      expect(rest.meta_info.finish_reason).toEqual({ type: "stop", matched: IM_END });
      expect(rest.meta_info.completion_tokens).toBe(fullIds.length - k);
    });
  }

  it("should end a continuation at the reduced max_new_tokens where the uninterrupted run ends", async () => {
    const engine = await start({ tokenLatencyMs: 3 });
    const pending = generate(engine, { rid: "r", input_ids: prompt, sampling_params: { max_new_tokens: 8 } });
    await engine.whenGenerated({ rid: "r", tokens: 3 });
    engine.abort("r");
    const partial = await pending;
    const k = partial.output_ids.length;
    const rest = await generate(engine, {
      input_ids: [...prompt, ...partial.output_ids],
      sampling_params: { max_new_tokens: 8 - k },
    });
    expect([...partial.output_ids, ...rest.output_ids]).toEqual(fullIds.slice(0, 8));
    expect(rest.meta_info.finish_reason).toEqual({ type: "length", length: 8 - k });
  });

  it("should relabel the continued tokens with the new weight version (ids kept, logprobs of the new version)", async () => {
    const engine = await start({ tokenLatencyMs: 3, weightVersionSpans: true });
    const pending = generate(engine, {
      rid: "r",
      input_ids: prompt,
      sampling_params: { max_new_tokens: 64 },
    });
    await engine.whenGenerated({ rid: "r", tokens: 4 });
    await post(engine, "/pause_generation", { mode: "abort" });
    const partial = await pending;
    const k = partial.output_ids.length;
    expect(partial.meta_info.weight_versions).toEqual([{ version: "default", start: 0, end: k }]);
    const update = await post(engine, "/update_weights_from_disk", {
      model_path: "/ckpt/2",
      weight_version: "v2",
    });
    expect(update.json()).toMatchObject({ success: true, num_paused_requests: 0 });
    await post(engine, "/continue_generation", {});
    const context = [...prompt, ...partial.output_ids];
    const rest = await generate(engine, { input_ids: context, sampling_params: { max_new_tokens: 64 - k } });
    expect([...partial.output_ids, ...rest.output_ids]).toEqual(fullIds);
    expect(logprobsOf(partial)).toEqual(
      computeStandinLogprobs({ seed: 7, inputIds: prompt, outputIds: partial.output_ids }),
    );
    expect(logprobsOf(rest)).toEqual(
      computeStandinLogprobs({ seed: 7, weightVersion: "v2", inputIds: context, outputIds: rest.output_ids }),
    );
    expect(rest.meta_info.weight_version).toBe("v2");
    expect(rest.meta_info.weight_versions).toEqual([{ version: "v2", start: 0, end: fullIds.length - k }]);
  });

  it("should use a kept plan once, and ask the policy for anything that is not an exact continuation", async () => {
    const engine = await start({ tokenLatencyMs: 3 });
    const pending = generate(engine, {
      rid: "r",
      input_ids: prompt,
      sampling_params: { max_new_tokens: 64 },
    });
    await engine.whenGenerated({ rid: "r", tokens: 4 });
    engine.abort("r");
    const partial = await pending;
    // One id short of prompt + emitted ids: not a continuation, so the policy answers its next reply.
    const other = await generate(engine, { input_ids: [...prompt, ...partial.output_ids.slice(0, -1)] });
    expect(other.output_ids).toEqual([...tokenizer.encode("second reply"), IM_END]);
    const context = [...prompt, ...partial.output_ids];
    const rest = await generate(engine, { input_ids: context });
    expect([...partial.output_ids, ...rest.output_ids]).toEqual(fullIds);
    const again = await generate(engine, { input_ids: context });
    expect(again.output_ids).toEqual([...tokenizer.encode("third reply"), IM_END]);
  });

  it("should bound the kept plans (oldest evicted first; 0 disables continuation)", async () => {
    const engine = await start({
      tokenLatencyMs: 3,
      continuationCapacity: 1,
      policy: scriptedPolicy([FIRST, FIRST, "fresh"]),
    });
    const partials: Body[] = [];
    for (const rid of ["a", "b"]) {
      const pending = generate(engine, { rid, input_ids: prompt, sampling_params: { max_new_tokens: 64 } });
      await engine.whenGenerated({ rid, tokens: rid === "a" ? 3 : 5 });
      engine.abort(rid);
      partials.push(await pending);
    }
    expect(partials[0]!.output_ids.length).not.toBe(partials[1]!.output_ids.length);
    expect(engine.continuationsKept).toBe(1);
    const evicted = await generate(engine, { input_ids: [...prompt, ...partials[0]!.output_ids] });
    expect(evicted.output_ids).toEqual([...tokenizer.encode("fresh"), IM_END]);
    const kept = await generate(engine, { input_ids: [...prompt, ...partials[1]!.output_ids] });
    expect([...partials[1]!.output_ids, ...kept.output_ids]).toEqual(fullIds);

    const disabled = await start({ tokenLatencyMs: 3, continuationCapacity: 0 });
    const pending = generate(disabled, { rid: "c", input_ids: prompt });
    await disabled.whenGenerated({ rid: "c", tokens: 2 });
    disabled.abort("c");
    await pending;
    expect(disabled.continuationsKept).toBe(0);
  });
});

describe("stand-in /pause_generation modes on the wire", () => {
  it("in_place then abort by rid: the frozen request returns its partial output and continues exactly", async () => {
    const engine = await start({ tokenLatencyMs: 3 });
    const pending = generate(engine, {
      rid: "r",
      input_ids: prompt,
      sampling_params: { max_new_tokens: 64 },
    });
    await engine.whenGenerated({ rid: "r", tokens: 3 });
    await post(engine, "/pause_generation", { mode: "in_place" });
    const frozenAt = engine.requests()[0]!.outputTokens;
    await post(engine, "/abort_request", { rid: "r" });
    const partial = await pending;
    expect(partial.output_ids).toEqual(fullIds.slice(0, frozenAt));
    await post(engine, "/update_weights_from_disk", { model_path: "/m", weight_version: "v5" });
    await post(engine, "/continue_generation", {});
    const context = [...prompt, ...partial.output_ids];
    const rest = await generate(engine, {
      input_ids: context,
      sampling_params: { max_new_tokens: 64 - frozenAt },
    });
    expect([...partial.output_ids, ...rest.output_ids]).toEqual(fullIds);
    expect(logprobsOf(rest)).toEqual(
      computeStandinLogprobs({ seed: 7, weightVersion: "v5", inputIds: context, outputIds: rest.output_ids }),
    );
  });

  it("abort: in-flight requests end now with their partial output; new ones are held before the scheduler until continue", async () => {
    const engine = await start({ tokenLatencyMs: 3 });
    const pending = generate(engine, { rid: "r", input_ids: prompt });
    await engine.whenGenerated({ rid: "r", tokens: 2 });
    expect((await post(engine, "/pause_generation", { mode: "abort" })).json()).toEqual({
      message: "Generation paused successfully.",
      status: "ok",
    });
    const partial = await pending;
    expect(partial.meta_info.finish_reason).toEqual({
      type: "abort",
      message: "Aborted",
      status_code: null,
      err_type: null,
    });
    expect(partial.output_ids).toEqual(fullIds.slice(0, partial.output_ids.length));
    const held = generate(engine, { rid: "new", input_ids: prompt, sampling_params: { max_new_tokens: 2 } });
    while ((await (await fetch(`${engine.url}/server_info`)).json()).internal_states[0].held_at_pause !== 1)
      await new Promise((resolve) => setTimeout(resolve, 2));
    // As in SGLang (the tokenizer manager holds it), the new request is in no scheduler queue: a cache
    // flush and a weight update with flush_cache are not refused because of it.
    expect(await serverState(engine)).toEqual({ running: 0, waiting: 0, paused: "abort" });
    expect((await post(engine, "/flush_cache", {})).status).toBe(200);
    const update = await post(engine, "/update_weights_from_disk", {
      model_path: "/ckpt/2",
      weight_version: "v2",
    });
    expect(update.status).toBe(200);
    await post(engine, "/continue_generation", {});
    const continued = await held;
    expect(continued.meta_info.finish_reason).toEqual({ type: "length", length: 2 });
    expect(continued.meta_info.weight_version).toBe("v2");
  });

  it("retract: running requests go back to the waiting queue, keep their output and re-run after continue", async () => {
    const engine = await start({ tokenLatencyMs: 3, weightVersionSpans: true });
    const pending = generate(engine, {
      rid: "r",
      input_ids: prompt,
      sampling_params: { max_new_tokens: 64 },
    });
    await engine.whenGenerated({ rid: "r", tokens: 3 });
    await post(engine, "/pause_generation", { mode: "retract" });
    expect(await serverState(engine)).toEqual({ running: 0, waiting: 1, paused: "retract" });
    const frozenAt = engine.requests()[0]!.outputTokens;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(engine.requests()).toEqual([
      { rid: "r", state: "waiting", inputTokens: prompt.length, outputTokens: frozenAt },
    ]);
    expect((await post(engine, "/flush_cache", {})).status).toBe(400);
    const update = await post(engine, "/update_weights_from_disk", {
      model_path: "/ckpt/3",
      weight_version: "v3",
      flush_cache: false,
    });
    expect(update.json()).toMatchObject({ success: true });
    await post(engine, "/continue_generation", {});
    const result = await pending;
    expect(result.output_ids).toEqual(fullIds);
    expect(result.meta_info.num_retractions).toBe(1);
    expect(result.meta_info.cached_tokens).toBe(0);
    expect(result.meta_info.weight_versions).toEqual([
      { version: "default", start: 0, end: frozenAt },
      { version: "v3", start: frozenAt, end: fullIds.length },
    ]);
    const logprobs = logprobsOf(result);
    expect(logprobs.slice(0, frozenAt)).toEqual(
      computeStandinLogprobs({ seed: 7, inputIds: prompt, outputIds: fullIds.slice(0, frozenAt) }),
    );
    expect(logprobs.slice(frozenAt)).toEqual(
      computeStandinLogprobs({
        seed: 7,
        weightVersion: "v3",
        inputIds: [...prompt, ...fullIds.slice(0, frozenAt)],
        outputIds: fullIds.slice(frozenAt),
      }),
    );
  });

  it("retract: re-admission follows arrival order under the concurrency limit", async () => {
    const engine = await start({ tokenLatencyMs: 3, maxConcurrency: 1 });
    const first = generate(engine, {
      rid: "first",
      input_ids: prompt,
      sampling_params: { max_new_tokens: 6 },
    });
    await engine.whenGenerated({ rid: "first", tokens: 2 });
    const second = generate(engine, {
      rid: "second",
      input_ids: prompt,
      sampling_params: { max_new_tokens: 2 },
    });
    await engine.until((requests) => requests.length === 2);
    await post(engine, "/pause_generation", { mode: "retract" });
    expect(await serverState(engine)).toEqual({ running: 0, waiting: 2, paused: "retract" });
    // The states at the first re-admission, read by the engine's own watcher: read after the HTTP round
    // trip of /continue_generation instead, "first" may already have finished on a loaded machine.
    let readmitted: string[][] | undefined;
    const seen = engine.until((requests) => {
      if (!requests.some((request) => request.state === "running")) return false;
      readmitted = requests.map((request) => [request.rid, request.state]);
      return true;
    });
    await post(engine, "/continue_generation", {});
    await seen;
    expect(readmitted).toEqual([
      ["first", "running"],
      ["second", "waiting"],
    ]);
    expect((await first).output_ids).toEqual(fullIds.slice(0, 6));
    expect((await second).meta_info.finish_reason).toEqual({ type: "length", length: 2 });
  });

  it("in_place: requests freeze running, flush is refused, and they continue with no output lost", async () => {
    const engine = await start({ tokenLatencyMs: 3, weightVersionSpans: true });
    const pending = generate(engine, {
      rid: "r",
      input_ids: prompt,
      sampling_params: { max_new_tokens: 64 },
    });
    await engine.whenGenerated({ rid: "r", tokens: 3 });
    await post(engine, "/pause_generation", { mode: "in_place" });
    expect(await serverState(engine)).toEqual({ running: 1, waiting: 0, paused: "in_place" });
    const frozenAt = engine.requests()[0]!.outputTokens;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(engine.requests()[0]!.outputTokens).toBe(frozenAt);
    expect((await post(engine, "/flush_cache", {})).text).toBe(
      '{"error":{"message":"Cache not flushed because there are pending requests."}}',
    );
    const refused = await post(engine, "/update_weights_from_disk", {
      model_path: "/ckpt/4",
      weight_version: "v4",
    });
    expect(refused.status).toBe(400);
    expect(refused.json()).toEqual({
      success: false,
      message:
        "Cache flush failed after updating weights: 1 requests are paused in place or waiting; send flush_cache: false while generation is paused with mode in_place or retract.",
      num_paused_requests: 0,
    });
    expect(engine.weightVersion).toBe("default");
    await post(engine, "/update_weight_version", { new_version: "v4", abort_all_requests: false });
    await post(engine, "/continue_generation", {});
    const result = await pending;
    expect(result.output_ids).toEqual(fullIds);
    expect(result.meta_info.num_retractions).toBeUndefined();
    expect(result.meta_info.weight_version).toBe("v4");
    expect(result.meta_info.weight_versions).toEqual([
      { version: "default", start: 0, end: frozenAt },
      { version: "v4", start: frozenAt, end: fullIds.length },
    ]);
  });
});

describe("stand-in /update_weights_from_disk", () => {
  it("should refuse a missing or non-string model_path with FastAPI's 422, and an empty one with success false", async () => {
    const engine = await start();
    const missing = await post(engine, "/update_weights_from_disk", { weight_version: "x" });
    expect([missing.status, missing.json()]).toEqual([
      422,
      {
        detail: [
          {
            type: "missing",
            loc: ["body", "model_path"],
            msg: "Field required",
            input: { weight_version: "x" },
          },
        ],
      },
    ]);
    const wrongType = await post(engine, "/update_weights_from_disk", { model_path: 5 });
    expect([wrongType.status, wrongType.json()]).toEqual([
      422,
      {
        detail: [
          {
            type: "string_type",
            loc: ["body", "model_path"],
            msg: "Input should be a valid string",
            input: 5,
          },
        ],
      },
    ]);
    const empty = await post(engine, "/update_weights_from_disk", { model_path: "" });
    expect([empty.status, empty.json()]).toEqual([
      400,
      {
        success: false,
        message: "Failed to update weights: model_path is empty (stand-in: nothing to load).",
        num_paused_requests: 0,
      },
    ]);
    const badFlag = await post(engine, "/update_weights_from_disk", { model_path: "/m", flush_cache: "yes" });
    expect(badFlag.status).toBe(400);
    expect(badFlag.text).toContain("flush_cache");
    expect(engine.weightVersion).toBe("default");
  });

  it("should keep the label without weight_version, and report a new one in every later response", async () => {
    const engine = await start();
    await post(engine, "/update_weights_from_disk", { model_path: "/m" });
    expect(engine.weightVersion).toBe("default");
    await post(engine, "/update_weights_from_disk", { model_path: "/m", weight_version: 12 });
    const body = await generate(engine, { input_ids: prompt });
    expect(body.meta_info.weight_version).toBe("12");
    expect(logprobsOf(body)).toEqual(
      computeStandinLogprobs({ seed: 7, weightVersion: "12", inputIds: prompt, outputIds: fullIds }),
    );
  });

  it("should abort in-flight requests with abort_all_requests, and otherwise wait for them to finish", async () => {
    const engine = await start({ tokenLatencyMs: 3 });
    const first = generate(engine, { rid: "a", input_ids: prompt, sampling_params: { max_new_tokens: 6 } });
    await engine.whenGenerated({ rid: "a", tokens: 1 });
    const update = post(engine, "/update_weights_from_disk", { model_path: "/m", weight_version: "w1" });
    // The update answers only once the request in flight has finished generating (not aborted).
    const inFlightWhenAnswered = await update.then(() => engine.requests());
    expect(inFlightWhenAnswered).toEqual([]);
    expect((await first).meta_info.finish_reason).toEqual({ type: "length", length: 6 });
    expect(engine.weightVersion).toBe("w1");

    const second = generate(engine, { rid: "b", input_ids: prompt, sampling_params: { max_new_tokens: 64 } });
    await engine.whenGenerated({ rid: "b", tokens: 1 });
    const aborting = await post(engine, "/update_weights_from_disk", {
      model_path: "/m",
      weight_version: "w2",
      abort_all_requests: true,
    });
    expect(aborting.json()).toMatchObject({ success: true, num_paused_requests: 0 });
    const aborted = await second;
    expect(aborted.meta_info.finish_reason).toMatchObject({ type: "abort" });
    expect(engine.weightVersion).toBe("w2");
  });
});

describe("stand-in /update_weight_version", () => {
  it("should refuse a missing new_version with FastAPI's 422 and keep the label", async () => {
    const engine = await start();
    const missing = await post(engine, "/update_weight_version", { abort_all_requests: false });
    expect([missing.status, missing.json()]).toEqual([
      422,
      {
        detail: [
          {
            type: "missing",
            loc: ["body", "new_version"],
            msg: "Field required",
            input: { abort_all_requests: false },
          },
        ],
      },
    ]);
    const none = await post(engine, "/update_weight_version", undefined);
    expect(none.status).toBe(422);
    expect(engine.weightVersion).toBe("default");
  });

  it("should abort requests in flight by default (abort_all_requests defaults to true)", async () => {
    const engine = await start({ tokenLatencyMs: 3 });
    const pending = generate(engine, {
      rid: "r",
      input_ids: prompt,
      sampling_params: { max_new_tokens: 64 },
    });
    await engine.whenGenerated({ rid: "r", tokens: 2 });
    expect((await post(engine, "/update_weight_version", { new_version: "v9" })).json()).toEqual({
      success: true,
      message: "Weight version updated to v9",
      new_version: "v9",
    });
    const aborted = await pending;
    expect(aborted.meta_info.finish_reason).toMatchObject({ type: "abort" });
    expect(aborted.output_ids).toEqual(fullIds.slice(0, aborted.output_ids.length));
  });
});
