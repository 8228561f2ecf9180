import type { AssistantTurn } from "@relax/chat";
import { afterEach, describe, expect, it, vi } from "vitest";
import { counterIds, TEXT_TURN } from "../../test/support/scripted-generate";
import type { ProtocolWarning } from "../shared/protocol";
import { createProtocolHandler, type GenerateContext, type RequestEndEvent } from "./create-protocol-handler";

const CHAT_BODY = { model: "m", messages: [{ role: "user", content: "hi" }], temperature: 0.2 };

function post(path: string, body: unknown, init: RequestInit = {}): Request {
  return new Request(`http://relax.test${path}`, {
    method: "POST",
    headers: { authorization: "Bearer s-1", ...(init.headers as Record<string, string>) },
    body: JSON.stringify(body),
    ...(init.signal !== undefined ? { signal: init.signal } : {}),
  });
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A generate that waits for the test, and rejects with the signal's reason when aborted. */
function pendingGenerate() {
  const contexts: GenerateContext[] = [];
  const turn = deferred<AssistantTurn>();
  const generate = (context: GenerateContext) => {
    contexts.push(context);
    context.signal.addEventListener("abort", () => turn.reject(new DOMException("aborted", "AbortError")));
    return turn.promise;
  };
  return { contexts, turn, generate };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("createProtocolHandler: routes and credentials", () => {
  it.each([
    ["/v1/chat/completions", "chat-completions"],
    ["/chat/completions", "chat-completions"],
    ["/v1/responses", "responses"],
    ["/responses/", "responses"],
    ["/v1/messages?beta=true", "anthropic-messages"],
    ["/messages", "anthropic-messages"],
  ])("should route POST %s to %s", async (path, protocol) => {
    const contexts: GenerateContext[] = [];
    const handler = createProtocolHandler({
      generate: async (context) => {
        contexts.push(context);
        return TEXT_TURN;
      },
    });
    const body =
      protocol === "chat-completions"
        ? CHAT_BODY
        : protocol === "responses"
          ? { input: "hi" }
          : { max_tokens: 8, messages: [{ role: "user", content: "hi" }] };
    const response = await handler(post(path, body));
    expect(response.status).toBe(200);
    expect(contexts[0]?.protocol).toBe(protocol);
  });

  it("should serve routes below a basePath only", async () => {
    const handler = createProtocolHandler({ generate: async () => TEXT_TURN, basePath: "/agentic_api/" });
    expect((await handler(post("/agentic_api/v1/chat/completions", CHAT_BODY))).status).toBe(200);
    expect((await handler(post("/v1/chat/completions", CHAT_BODY))).status).toBe(404);
    expect((await handler(post("/agentic_apix/v1/chat/completions", CHAT_BODY))).status).toBe(404);
  });

  it("should take the session id from x-api-key when there is no Bearer header", async () => {
    const contexts: GenerateContext[] = [];
    const handler = createProtocolHandler({
      generate: async (context) => {
        contexts.push(context);
        return TEXT_TURN;
      },
    });
    const request = new Request("http://relax.test/v1/messages?beta=true", {
      method: "POST",
      headers: { "x-api-key": "agentic_session_shard_3.session-ab12" },
      body: JSON.stringify({ max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
    });
    expect((await handler(request)).status).toBe(200);
    expect(contexts[0]?.sessionId).toBe("agentic_session_shard_3.session-ab12");
  });

  it("should answer 404 session_discarded when authenticate refuses, without generating", async () => {
    const generate = vi.fn(async () => TEXT_TURN);
    const handler = createProtocolHandler({ generate, authenticate: async (id) => id === "live" });
    const response = await handler(post("/v1/responses", { input: "hi" }));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        message: "session not found or already closed",
        type: "not_found_error",
        param: null,
        code: "session_discarded",
      },
    });
    expect(generate).not.toHaveBeenCalled();
  });

  it("should answer 405 with Allow: POST for other methods on a generation route", async () => {
    const handler = createProtocolHandler({ generate: async () => TEXT_TURN });
    const response = await handler(
      new Request("http://relax.test/v1/responses", { headers: { authorization: "Bearer s" } }),
    );
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("method_not_allowed");
  });

  it("should list models in the OpenAI or Anthropic dialect", async () => {
    const handler = createProtocolHandler({
      generate: async () => TEXT_TURN,
      models: () => [{ id: "qwen3-8b", created: 1_767_225_600 }],
    });
    const openai = await handler(new Request("http://relax.test/v1/models"));
    expect(await openai.json()).toEqual({
      object: "list",
      data: [{ id: "qwen3-8b", object: "model", created: 1_767_225_600, owned_by: "relax" }],
    });
    const anthropic = await handler(
      new Request("http://relax.test/v1/models", { headers: { "anthropic-version": "2023-06-01" } }),
    );
    expect(await anthropic.json()).toEqual({
      data: [
        { type: "model", id: "qwen3-8b", display_name: "qwen3-8b", created_at: "2026-01-01T00:00:00.000Z" },
      ],
      has_more: false,
      first_id: "qwen3-8b",
      last_id: "qwen3-8b",
    });
    const none = createProtocolHandler({ generate: async () => TEXT_TURN });
    expect((await none(new Request("http://relax.test/models"))).status).toBe(404);
  });
});

describe("createProtocolHandler: generation", () => {
  it("should pass the canonical request, report warnings and the end of the request", async () => {
    const warnings: [ProtocolWarning, unknown][] = [];
    const ends: RequestEndEvent[] = [];
    const contexts: GenerateContext[] = [];
    const handler = createProtocolHandler({
      generate: async (context) => {
        contexts.push(context);
        return TEXT_TURN;
      },
      onWarning: (warning, context) => warnings.push([warning, context]),
      onRequestEnd: (event) => ends.push(event),
      createId: counterIds(),
      now: () => 1_767_225_600_000,
    });
    const response = await handler(
      post("/v1/chat/completions", { ...CHAT_BODY, max_tokens: 64, seed: 7, stop: "END" }),
    );
    expect(await response.json()).toMatchObject({ id: "chatcmpl_0001", created: 1_767_225_600, model: "m" });
    expect(contexts[0]?.request).toEqual({
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      chatTemplateKwargs: {},
      stream: false,
      maxTokens: 64,
      stop: ["END"],
      seed: 7,
      model: "m",
    });
    expect(warnings).toEqual([
      [
        {
          type: "ignored-field",
          path: "temperature",
          message: "temperature is ignored: sampling parameters come from the rollout configuration",
        },
        { protocol: "chat-completions", sessionId: "s-1" },
      ],
    ]);
    expect(ends).toEqual([
      {
        path: "/v1/chat/completions",
        protocol: "chat-completions",
        sessionId: "s-1",
        stream: false,
        status: 200,
      },
    ]);
  });

  it("should render a throwing generate through the error table", async () => {
    const handler = createProtocolHandler({
      generate: () => {
        throw new Error("renderer exploded");
      },
    });
    const response = await handler(
      post("/v1/messages", { max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
    );
    expect(response.status).toBe(500);
    expect(response.headers.get("x-should-retry")).toBe("false");
    expect(await response.json()).toEqual({
      type: "error",
      error: { type: "api_error", message: "internal error: renderer exploded" },
    });
  });

  it("should abort generation and answer 499 when the client disconnects (JSON)", async () => {
    const pending = pendingGenerate();
    const ends: RequestEndEvent[] = [];
    const handler = createProtocolHandler({
      generate: pending.generate,
      onRequestEnd: (event) => ends.push(event),
    });
    const client = new AbortController();
    const answer = handler(post("/v1/chat/completions", CHAT_BODY, { signal: client.signal }));
    await vi.waitFor(() => expect(pending.contexts).toHaveLength(1));
    client.abort();
    const response = await answer;
    expect(pending.contexts[0]?.signal.aborted).toBe(true);
    expect(response.status).toBe(499);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("client_disconnect");
    expect(ends.map((event) => event.status)).toEqual([499]);
  });

  it("should abort generation and report 499 when the stream reader cancels", async () => {
    const pending = pendingGenerate();
    const ends: RequestEndEvent[] = [];
    const handler = createProtocolHandler({
      generate: pending.generate,
      onRequestEnd: (event) => ends.push(event),
    });
    const response = await handler(post("/v1/responses", { input: "hi", stream: true }));
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(": connected\n\n");
    await reader.cancel();
    await vi.waitFor(() => expect(ends).toHaveLength(1));
    expect(pending.contexts[0]?.signal.aborted).toBe(true);
    expect(ends[0]).toMatchObject({ protocol: "responses", stream: true, status: 499 });
  });

  it("should write the connected frame at once, heartbeats while generating, then the terminal sequence", async () => {
    vi.useFakeTimers();
    const pending = pendingGenerate();
    const handler = createProtocolHandler({
      generate: pending.generate,
      createId: counterIds(),
      now: () => 0,
    });
    const response = await handler(
      post("/v1/messages", { max_tokens: 8, stream: true, messages: [{ role: "user", content: "hi" }] }),
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const ping = 'event: ping\ndata: {"type":"ping"}\n\n';
    expect(decoder.decode((await reader.read()).value)).toBe(ping);
    let next = reader.read();
    let settled = false;
    void next.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(14_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(decoder.decode((await next).value)).toBe(ping);
    next = reader.read();
    await vi.advanceTimersByTimeAsync(15_000);
    expect(decoder.decode((await next).value)).toBe(ping);
    pending.turn.resolve(TEXT_TURN);
    const terminal = decoder.decode((await reader.read()).value);
    expect(terminal.startsWith("event: message_start\n")).toBe(true);
    expect(terminal.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
    expect((await reader.read()).done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("should honour a configured heartbeat interval", async () => {
    vi.useFakeTimers();
    const pending = pendingGenerate();
    const handler = createProtocolHandler({ generate: pending.generate, heartbeatMs: 2_000 });
    const response = await handler(post("/v1/chat/completions", { ...CHAT_BODY, stream: true }));
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe(": connected\n\n");
    const next = reader.read();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(decoder.decode((await next).value)).toBe(": heartbeat\n\n");
    pending.turn.resolve(TEXT_TURN);
    const terminal = decoder.decode((await reader.read()).value);
    expect(terminal.endsWith("data: [DONE]\n\n")).toBe(true);
  });
});
