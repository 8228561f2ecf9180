import Anthropic from "@anthropic-ai/sdk";
import { SessionForest } from "@relax/forest";
import { readAnswerSchema } from "@relax/standin";
import OpenAI from "openai";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { GatewaySession } from "../session/gateway-session";
import { createTestGateway, type TestGateway } from "../testing/create-test-gateway";

/** Harness-shaped requests through the official SDKs, on the stand-in engine (not a model). */
let gateway: TestGateway;
let counter = 0;

beforeAll(async () => {
  gateway = await createTestGateway();
});

afterEach(() => {
  for (const id of [...openSessions]) gateway.registry.remove(id);
  openSessions.clear();
});

const openSessions = new Set<string>();

function openSession(g: TestGateway = gateway): GatewaySession {
  const id = `harness-${++counter}`;
  const session = new GatewaySession({
    id,
    groupId: "g-harness",
    mode: "train",
    forest: new SessionForest({ sessionId: id, renderer: g.renderer, maxContextTokens: 4096 }),
  });
  g.registry.add(session);
  session.lease();
  if (g === gateway) openSessions.add(id);
  return session;
}

const sdkFetch =
  (g: TestGateway) =>
  (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
    g.fetch(new Request(input, init));

function generateBodies(g: TestGateway, from: number) {
  return g.standin.calls
    .slice(from)
    .filter((call) => call.path === "/generate")
    .map((call) => call.body as { input_ids: number[]; sampling_params: Record<string, unknown> });
}

const decode = (ids: number[]) => gateway.tokenizer.decode(ids, { skipSpecialTokens: false });

describe("Claude Code on /v1/messages (Anthropic SDK)", () => {
  const billing = (nonce: string) =>
    `x-anthropic-billing-header: cc_version=2.1.3.a1b; cc_entrypoint=sdk-cli; cch=${nonce};`;
  const system = (nonce: string) => [
    { type: "text" as const, text: billing(nonce) },
    { type: "text" as const, text: "You are Claude Code." },
  ];

  it("should extend the lineage across turns although the billing nonce changes, with system entries in messages", async () => {
    const session = openSession();
    const client = new Anthropic({
      apiKey: session.id,
      baseURL: "http://gateway.test/agentic_api",
      fetch: sdkFetch(gateway),
      maxRetries: 0,
    });
    const from = gateway.standin.calls.length;
    const reminder = { role: "system", content: "Available agent types: general-purpose." } as never;
    // Claude Code streams, with max_tokens 32000.
    const first = await client.messages
      .stream({
        model: "qwen3-8b",
        max_tokens: 32000,
        system: system("9f2c1"),
        messages: [{ role: "user", content: "Create hello.txt" }, reminder],
      })
      .finalMessage();
    expect(first.content).toEqual([{ type: "text", text: "Answer 1." }]);
    const second = await client.messages
      .stream({
        model: "qwen3-8b",
        max_tokens: 32000,
        system: system("04e7d"),
        messages: [
          { role: "user", content: "Create hello.txt" },
          reminder,
          { role: "assistant", content: first.content as never },
          { role: "user", content: "Thanks" },
        ],
      })
      .finalMessage();
    expect(second.content).toEqual([{ type: "text", text: "Answer 2." }]);

    const [a, b] = generateBodies(gateway, from);
    expect(decode(a!.input_ids)).toBe(
      "<|im_start|>system\nYou are Claude Code.<|im_end|>\n<|im_start|>user\nCreate hello.txt<|im_end|>\n" +
        "<|im_start|>system\nAvailable agent types: general-purpose.<|im_end|>\n<|im_start|>assistant\n",
    );
    // The second prompt is the first prompt + the engine's own answer ids + the new observation.
    const answer = gateway.tokenizer.encode("Answer 1.<|im_end|>");
    expect(b!.input_ids.slice(0, a!.input_ids.length + answer.length)).toEqual([...a!.input_ids, ...answer]);
    const turns = session.forest.turns();
    expect(turns.map((turn) => turn.transition)).toEqual(["append", "append"]);
    expect(turns[1]!.parentStateHash).toBe(turns[0]!.responseStateHash);
  });

  it("should answer count_tokens with the template's token count of the prompt", async () => {
    const session = openSession();
    const client = new Anthropic({
      apiKey: session.id,
      baseURL: "http://gateway.test/agentic_api",
      fetch: sdkFetch(gateway),
      maxRetries: 0,
    });
    const body = {
      model: "qwen3-8b",
      system: system("aa"),
      messages: [{ role: "user" as const, content: "Hi" }],
    };
    const counted = await client.messages.countTokens(body);
    const from = gateway.standin.calls.length;
    await client.messages.create({ ...body, max_tokens: 16 });
    const [sent] = generateBodies(gateway, from);
    expect(counted).toEqual({ input_tokens: sent!.input_ids.length });
    expect(counted.input_tokens).toBe(
      gateway.tokenizer.encode(
        "<|im_start|>system\nYou are Claude Code.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
      ).length,
    );
  });

  it("should refuse an OpenAI-style tool message with a 400 naming the field, record it and report it", async () => {
    const session = openSession();
    const client = new Anthropic({
      apiKey: session.id,
      baseURL: "http://gateway.test/agentic_api",
      fetch: sdkFetch(gateway),
      maxRetries: 0,
    });
    const refusalsBefore = gateway.refusals.length;
    const error = await client.messages
      .create({
        model: "m",
        max_tokens: 8,
        messages: [
          { role: "user", content: "Hi" },
          { role: "tool", tool_call_id: "c1", content: "42" } as never,
        ],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const message =
      'messages[1].role: must be "user", "assistant" or "system", got "tool"; an Anthropic tool result is a {"type": "tool_result", "tool_use_id": …, "content": …} block in a "user" message (the "tool" role is OpenAI Chat Completions)';
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message },
    });
    expect(session.lastRefusal).toEqual({ status: 400, path: "/agentic_api/v1/messages", message });
    expect(gateway.refusals.slice(refusalsBefore)).toEqual([
      { sessionId: session.id, group: "g-harness", path: "/agentic_api/v1/messages", status: 400, message },
    ]);
  });

  it("should record and report a refusal of an unknown path, inside and outside the base path", async () => {
    const session = openSession();
    const before = gateway.refusals.length;
    const inside = await gateway.fetch(
      new Request("http://gateway.test/agentic_api/v1/embeddings", {
        method: "POST",
        headers: { authorization: `Bearer ${session.id}` },
        body: "{}",
      }),
    );
    expect(inside.status).toBe(404);
    const outside = await gateway.fetch(
      new Request("http://gateway.test/v1/chat/completions", { method: "POST" }),
    );
    expect(outside.status).toBe(404);
    expect(gateway.refusals.slice(before)).toEqual([
      {
        sessionId: session.id,
        group: "g-harness",
        path: "/agentic_api/v1/embeddings",
        status: 404,
        message: "no route for POST /agentic_api/v1/embeddings",
      },
      { path: "/v1/chat/completions", status: 404, message: "no route for POST /v1/chat/completions" },
    ]);
    expect(session.lastRefusal).toEqual({
      status: 404,
      path: "/agentic_api/v1/embeddings",
      message: "no route for POST /agentic_api/v1/embeddings",
    });
  });

  it("should answer HEAD on the base URL with 200", async () => {
    const response = await gateway.fetch(new Request("http://gateway.test/agentic_api", { method: "HEAD" }));
    expect(response.status).toBe(200);
  });
});

describe("Responses server-side state (OpenAI SDK)", () => {
  it("should continue previous_response_id on the committed lineage and write reasoning into summary", async () => {
    const session = openSession();
    const client = new OpenAI({
      apiKey: session.id,
      baseURL: "http://gateway.test/agentic_api/v1",
      fetch: sdkFetch(gateway),
      maxRetries: 0,
    });
    const from = gateway.standin.calls.length;
    const first = await client.responses.create({ model: "m", instructions: "Be brief.", input: "Hi" });
    expect(first.output_text).toBe("Answer 1.");
    const second = await client.responses.create({
      model: "m",
      instructions: "Be brief.",
      previous_response_id: first.id,
      input: "Again",
    });
    expect(second.output_text).toBe("Answer 2.");
    expect(second.previous_response_id).toBe(first.id);
    const [a, b] = generateBodies(gateway, from);
    expect(decode(b!.input_ids.slice(a!.input_ids.length))).toBe(
      "Answer 1.<|im_end|>\n<|im_start|>user\nAgain<|im_end|>\n<|im_start|>assistant\n",
    );
    expect(session.forest.turns().map((turn) => turn.transition)).toEqual(["append", "append"]);
  });

  it("should refuse an unknown previous_response_id with 400 naming the field", async () => {
    const session = openSession();
    const client = new OpenAI({
      apiKey: session.id,
      baseURL: "http://gateway.test/agentic_api/v1",
      fetch: sdkFetch(gateway),
      maxRetries: 0,
    });
    const error = await client.responses
      .create({ model: "m", previous_response_id: "resp_unknown", input: "Hi" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("previous_response_id");
    expect(session.lastRefusal?.status).toBe(400);
  });
});

describe("tool calls and structured output on the stand-in", () => {
  it("should turn a `parameters` tool call into a call, and report a malformed one as an issue", async () => {
    const g = await createTestGateway({
      turns: { toolCallParser: "qwen25" },
      policy: ({ requestIndex }) =>
        requestIndex === 0
          ? '<tool_call>\n{"name": "write_file", "parameters": {"path": "hello.txt"}}\n</tool_call>'
          : '<tool_call>\n{"name": "write_file", "args": {"path": "hello.txt"}}\n</tool_call>',
    });
    try {
      const session = openSession(g);
      const client = new OpenAI({
        apiKey: session.id,
        baseURL: "http://gateway.test/agentic_api/v1",
        fetch: sdkFetch(g),
        maxRetries: 0,
      });
      const tools = [
        {
          type: "function" as const,
          function: {
            name: "write_file",
            parameters: { type: "object", properties: { path: { type: "string" } } },
          },
        },
      ];
      const first = await client.chat.completions.create({
        model: "m",
        tools,
        messages: [{ role: "user", content: "Create hello.txt" }],
      });
      expect(first.choices[0]!.finish_reason).toBe("tool_calls");
      expect(
        first.choices[0]!.message.tool_calls?.map((call) => (call as { function: unknown }).function),
      ).toEqual([{ name: "write_file", arguments: '{"path":"hello.txt"}' }]);
      const second = await client.chat.completions.create({
        model: "m",
        tools,
        messages: [{ role: "user", content: "Again" }],
      });
      expect(second.choices[0]!.message.tool_calls ?? []).toEqual([]);
      expect(second.choices[0]!.message.content).toBe(
        '<tool_call>\n{"name": "write_file", "args": {"path": "hello.txt"}}\n</tool_call>',
      );
      expect(g.turns.map((turn) => turn.issues?.map((issue) => issue.kind))).toEqual([
        undefined,
        ["malformed_tool_call"],
      ]);
    } finally {
      await g.close();
    }
  });

  it("should pass a JSON schema to /generate as json_schema only with honorResponseFormat", async () => {
    const schema = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };
    for (const honor of [true, false]) {
      // The stand-in enforces the constraint it is sent: the policy answers JSON when asked for a schema.
      const g = await createTestGateway({
        turns: { honorResponseFormat: honor },
        policy: ({ sampling }) => (readAnswerSchema(sampling) !== undefined ? '{"title":"T"}' : "Answer 1."),
      });
      try {
        const session = openSession(g);
        const client = new OpenAI({
          apiKey: session.id,
          baseURL: "http://gateway.test/agentic_api/v1",
          fetch: sdkFetch(g),
          maxRetries: 0,
        });
        const completion = await client.chat.completions.create({
          model: "m",
          messages: [{ role: "user", content: "Title?" }],
          response_format: { type: "json_schema", json_schema: { name: "t", schema } },
        });
        expect(completion.choices[0]!.message.content).toBe(honor ? '{"title":"T"}' : "Answer 1.");
        const [sent] = generateBodies(g, 0);
        expect(sent!.sampling_params.json_schema).toBe(honor ? JSON.stringify(schema) : undefined);
      } finally {
        await g.close();
      }
    }
  });
});
