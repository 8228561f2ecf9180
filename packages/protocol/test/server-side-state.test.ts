import { describe, expect, it } from "vitest";
import {
  type ConversationHistory,
  createConversationHistory,
  createProtocolHandler,
  type RequestEndEvent,
} from "../src/index";
import { RESPONSES_COMPACTION_PROMPT } from "../src/internal/index";
import { counterIds, scriptedGenerate, TEXT_TURN, TOOL_TURN } from "./support/scripted-generate";

const TOOLS = [{ type: "function", name: "get_weather", parameters: { type: "object" } }];

function post(path: string, body: unknown, session = "s-1"): Request {
  return new Request(`http://relax.test${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function setup(turns = [TOOL_TURN, TEXT_TURN]) {
  const histories = new Map<string, ConversationHistory>([["s-1", createConversationHistory()]]);
  const scripted = scriptedGenerate(turns);
  const ends: RequestEndEvent[] = [];
  const handler = createProtocolHandler({
    generate: scripted.generate,
    history: (sessionId) => histories.get(sessionId),
    createId: counterIds(),
    now: () => 1_700_000_000_000,
    countTokens: (request) => request.messages.length * 100 + request.tools.length,
    onRequestEnd: (event) => ends.push(event),
  });
  return { handler, calls: scripted.calls, ends, histories };
}

describe("Responses previous_response_id and item_reference", () => {
  it("should continue a committed response: its conversation, then the new input, without its instructions", async () => {
    const { handler, calls } = setup();
    const first = await handler(
      post("/v1/responses", { instructions: "Be brief.", input: "Weather in Paris?", tools: TOOLS }),
    );
    expect(first.status).toBe(200);
    const reply = (await first.json()) as { id: string; output: { id: string; type: string }[] };
    expect(reply.id).toBe("resp_0001");
    const second = await handler(
      post("/v1/responses", {
        instructions: "Be very brief.",
        previous_response_id: "resp_0001",
        input: [{ type: "function_call_output", call_id: "call_7f3a9c", output: "18 C, sunny" }],
        tools: TOOLS,
      }),
    );
    expect(second.status).toBe(200);
    expect(((await second.json()) as { previous_response_id: string }).previous_response_id).toBe(
      "resp_0001",
    );
    expect(calls[1]!.request.messages).toEqual([
      { role: "system", content: "Be very brief." },
      { role: "user", content: "Weather in Paris?" },
      TOOL_TURN.message,
      { role: "tool", content: "18 C, sunny", tool_call_id: "call_7f3a9c" },
    ]);
  });

  it("should resolve item_reference items to the output items they name", async () => {
    const { handler, calls } = setup();
    const first = await handler(post("/v1/responses", { input: "Weather in Paris?", tools: TOOLS }));
    const output = ((await first.json()) as { output: { id: string; type: string }[] }).output;
    expect(output.map((item) => [item.type, item.id])).toEqual([
      ["reasoning", "rs_0002"],
      ["message", "msg_0003"],
      ["function_call", "fc_0004"],
    ]);
    await handler(
      post("/v1/responses", {
        input: [
          { role: "user", content: "Weather in Paris?" },
          { type: "item_reference", id: "rs_0002" },
          { type: "item_reference", id: "msg_0003" },
          { type: "item_reference", id: "fc_0004" },
          { type: "function_call_output", call_id: "call_7f3a9c", output: "18 C" },
        ],
        tools: TOOLS,
      }),
    );
    expect(calls[1]!.request.messages).toEqual([
      { role: "user", content: "Weather in Paris?" },
      TOOL_TURN.message,
      { role: "tool", content: "18 C", tool_call_id: "call_7f3a9c" },
    ]);
  });

  it("should read a reasoning item replayed by its id with no text as the committed reasoning", async () => {
    const { handler, calls } = setup();
    await handler(post("/v1/responses", { input: "Weather in Paris?", tools: TOOLS }));
    await handler(
      post("/v1/responses", {
        input: [
          { role: "user", content: "Weather in Paris?" },
          { type: "reasoning", id: "rs_0002", summary: [] },
          {
            type: "function_call",
            call_id: "call_7f3a9c",
            name: "get_weather",
            arguments: '{"city":"Paris","unit":"celsius"}',
          },
          { type: "function_call_output", call_id: "call_7f3a9c", output: "18 C" },
        ],
        tools: TOOLS,
      }),
    );
    expect(calls[1]!.request.messages[1]).toEqual({
      role: "assistant",
      content: "",
      reasoning_content: TOOL_TURN.message.reasoning_content,
      tool_calls: TOOL_TURN.message.tool_calls,
    });
  });

  it.each([
    [
      { previous_response_id: "resp_9999", input: "hi" },
      'previous_response_id: unknown response id "resp_9999": not a recent committed response of this session',
    ],
    [
      { input: [{ type: "item_reference", id: "rs_9999" }] },
      'input[0].id: unknown item id "rs_9999": not an output item of a recent committed response of this session',
    ],
  ])("should answer 400 naming the field for an unknown id (%j)", async (body, message) => {
    const { handler, calls } = setup();
    const response = await handler(post("/v1/responses", body));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message,
        type: "invalid_request_error",
        param: message.split(/[:[]/)[0],
        code: "invalid_request_error",
      },
    });
    expect(calls).toEqual([]);
  });

  it("should not resolve another session's responses", async () => {
    const { handler, histories } = setup();
    histories.set("s-2", createConversationHistory());
    await handler(post("/v1/responses", { input: "hi" }));
    const response = await handler(
      post("/v1/responses", { previous_response_id: "resp_0001", input: "x" }, "s-2"),
    );
    expect(response.status).toBe(400);
  });

  it("should write reasoning into summary when reasoning.summary is set", async () => {
    const { handler } = setup([TEXT_TURN]);
    const response = await handler(
      post("/v1/responses", { input: "hi", reasoning: { effort: "low", summary: "auto" } }),
    );
    const reply = (await response.json()) as { output: unknown[] };
    expect(reply.output[0]).toEqual({
      type: "reasoning",
      id: "rs_0002",
      status: "completed",
      summary: [{ type: "summary_text", text: "The tool said 18 and sunny." }],
      content: [{ type: "reasoning_text", text: "The tool said 18 and sunny." }],
    });
  });
});

describe("Responses reasoning summary, streamed", () => {
  it("should stream the summary parts before the reasoning text", async () => {
    const { handler } = setup([TEXT_TURN]);
    const response = await handler(
      post("/v1/responses", { input: "hi", stream: true, reasoning: { summary: "auto" } }),
    );
    const events = (await response.text())
      .split("\n\n")
      .filter((frame) => frame.startsWith("event: "))
      .map((frame) => JSON.parse(frame.slice(frame.indexOf("data: ") + 6)) as Record<string, unknown>);
    const reasoning = events.filter((event) => String(event.type).includes("reasoning"));
    expect(reasoning.map((event) => event.type)).toEqual([
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.reasoning_text.delta",
      "response.reasoning_text.done",
    ]);
    expect(reasoning[1]).toEqual({
      type: "response.reasoning_summary_text.delta",
      sequence_number: 4,
      item_id: "rs_0002",
      output_index: 0,
      summary_index: 0,
      delta: "The tool said 18 and sunny.",
    });
  });
});

describe("Anthropic thread", () => {
  const tools = [{ name: "get_weather", input_schema: { type: "object" } }];

  it("should continue a committed reply with its system and tools when the request has none", async () => {
    const { handler, calls } = setup();
    const first = await handler(
      post("/v1/messages", {
        max_tokens: 100,
        system: "Weather bot.",
        tools,
        thinking: { type: "enabled", budget_tokens: 1024 },
        thread: { type: "create" },
        messages: [{ role: "user", content: "Weather in Paris?" }],
      }),
    );
    expect(first.status).toBe(200);
    const id = ((await first.json()) as { id: string }).id;
    expect(id).toBe("msg_0001");
    const second = await handler(
      post("/v1/messages", {
        max_tokens: 100,
        thread: { type: "continue", previous_message_id: id },
        messages: [
          { role: "user", content: [{ type: "tool_result", tool_use_id: "call_7f3a9c", content: "18 C" }] },
        ],
      }),
    );
    expect(second.status).toBe(200);
    expect(calls[1]!.request.messages).toEqual([
      { role: "system", content: "Weather bot." },
      { role: "user", content: "Weather in Paris?" },
      TOOL_TURN.message,
      { role: "tool", content: "18 C", tool_call_id: "call_7f3a9c" },
    ]);
    expect(calls[1]!.request.tools).toEqual(calls[0]!.request.tools);
    expect(calls[1]!.request.chatTemplateKwargs).toEqual({ enable_thinking: true });
    expect(calls[1]!.request.tools.map((tool) => tool.function.name)).toEqual(["get_weather"]);
  });

  it("should answer 400 naming thread.previous_message_id for an unknown id", async () => {
    const { handler } = setup();
    const response = await handler(
      post("/v1/messages", {
        max_tokens: 100,
        thread: { type: "continue", previous_message_id: "msg_nope" },
        messages: [{ role: "user", content: "hi" }],
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: "error",
      error: {
        type: "invalid_request_error",
        message:
          'thread.previous_message_id: unknown message id "msg_nope": not a recent committed reply of this session',
      },
    });
  });

  it("should answer 400 without a history instead of ignoring the thread", async () => {
    const handler = createProtocolHandler({ generate: scriptedGenerate([TEXT_TURN]).generate });
    const response = await handler(
      post("/v1/messages", {
        max_tokens: 100,
        thread: { type: "continue", previous_message_id: "msg_1" },
        messages: [{ role: "user", content: "hi" }],
      }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /^thread\.previous_message_id: is not supported/,
    );
  });
});

describe("count_tokens, the base URL and /responses/compact", () => {
  it("should answer count_tokens with the counter's figure, without max_tokens", async () => {
    const { handler, calls, ends } = setup();
    const response = await handler(
      post("/v1/messages/count_tokens", {
        model: "m",
        system: "S",
        messages: [{ role: "user", content: "hi" }],
        tools: [{ name: "t", input_schema: { type: "object" } }],
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ input_tokens: 201 });
    expect(calls).toEqual([]);
    expect(ends).toEqual([
      {
        protocol: "anthropic-messages",
        sessionId: "s-1",
        stream: false,
        status: 200,
        path: "/v1/messages/count_tokens",
      },
    ]);
  });

  it("should answer count_tokens errors in Anthropic's format", async () => {
    const { handler } = setup();
    const response = await handler(post("/v1/messages/count_tokens", { messages: [] }));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "messages: must contain at least one message" },
    });
  });

  it.each([
    ["HEAD", "/", ""],
    ["GET", "/", '{"status":"ok"}'],
    ["HEAD", "/v1", ""],
  ])("should answer %s %s with 200 and no credential", async (method, path, text) => {
    const { handler } = setup();
    const response = await handler(new Request(`http://relax.test${path}`, { method }));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(text);
  });

  it("should answer /v1/responses/compact with a compaction turn in OpenAI's response.compaction shape", async () => {
    const { handler, calls, ends } = setup([TEXT_TURN]);
    const response = await handler(
      post("/v1/responses/compact", {
        model: "gpt-5-codex",
        instructions: "You are Codex.",
        input: [
          { type: "message", role: "user", content: [{ type: "input_text", text: "Weather in Paris?" }] },
          { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
          { type: "function_call_output", call_id: "call_1", output: "18 C, sunny" },
        ],
        tools: TOOLS,
        parallel_tool_calls: false,
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(
      JSON.stringify({
        id: "resp_0001",
        object: "response.compaction",
        created_at: 1_700_000_000,
        output: [
          {
            id: "msg_0002",
            type: "message",
            role: "user",
            status: "completed",
            content: [{ type: "input_text", text: "Weather in Paris?" }],
          },
          {
            id: "cmp_0003",
            type: "compaction",
            encrypted_content: `relax-compaction-v1:${Buffer.from("It is 18 °C and sunny in Paris.").toString("base64")}`,
          },
        ],
        usage: {
          input_tokens: 170,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 12,
          total_tokens: 182,
        },
      }),
    );
    // The compaction turn: the same history, no tools, unary, the gateway's prompt last.
    expect(calls[0]!.request.tools).toEqual([]);
    expect(calls[0]!.request.stream).toBe(false);
    expect(calls[0]!.request.messages.at(-1)).toEqual({ role: "user", content: RESPONSES_COMPACTION_PROMPT });
    expect(calls[0]!.request.messages.slice(0, 2)).toEqual([
      { role: "system", content: "You are Codex." },
      { role: "user", content: "Weather in Paris?" },
    ]);
    expect(calls[0]!.http?.path).toBe("/v1/responses/compact");
    expect(ends).toEqual([
      { protocol: "responses", sessionId: "s-1", stream: false, status: 200, path: "/v1/responses/compact" },
    ]);
  });

  it("should read a compaction item back as the summary when the compacted window is replayed", async () => {
    const { handler, calls } = setup([TEXT_TURN, TEXT_TURN]);
    const compacted = (await (
      await handler(post("/v1/responses/compact", { model: "m", input: "Weather in Paris?" }))
    ).json()) as { output: unknown[] };
    const next = await handler(
      post("/v1/responses", {
        instructions: "You are Codex.",
        input: [...compacted.output, { type: "message", role: "user", content: "Go on." }],
      }),
    );
    expect(next.status).toBe(200);
    expect(calls[1]!.request.messages).toEqual([
      { role: "system", content: "You are Codex." },
      { role: "user", content: "Weather in Paris?" },
      {
        role: "user",
        content: "Summary of the conversation so far (context compaction):\nIt is 18 °C and sunny in Paris.",
      },
      { role: "user", content: "Go on." },
    ]);
  });

  it.each([
    [
      "a compaction item made elsewhere",
      "/v1/responses",
      {
        input: [
          { role: "user", content: "Weather in Paris?" },
          { type: "compaction", encrypted_content: "gAAAAABo-opaque" },
        ],
      },
      "input[1].encrypted_content",
    ],
    ["a streamed compaction", "/v1/responses/compact", { input: "x", stream: true }, "stream"],
  ])("should refuse %s with a 400 naming the field", async (_name, path, body, param) => {
    const { handler, calls } = setup();
    const response = await handler(post(path, body));
    expect(response.status).toBe(400);
    const error = ((await response.json()) as { error: { param: string; message: string } }).error;
    // `param` is the top-level parameter; the message starts with the full field path.
    expect(error.param).toBe(param.split(/[.[]/, 1)[0]);
    expect(error.message.startsWith(`${param}: `)).toBe(true);
    expect(calls).toEqual([]);
  });

  it("should report route-level refusals to onRequestEnd, with the session when a credential is sent", async () => {
    const { handler, ends } = setup();
    await handler(post("/v1/embeddings", { input: "x" }));
    await handler(new Request("http://relax.test/v1/responses/compact", { method: "GET" }));
    expect(ends).toEqual([
      {
        protocol: "chat-completions",
        sessionId: "s-1",
        stream: false,
        status: 404,
        path: "/v1/embeddings",
        message: "no route for POST /v1/embeddings",
      },
      expect.objectContaining({ protocol: "responses", status: 405, path: "/v1/responses/compact" }),
    ]);
    expect(ends[1]).not.toHaveProperty("sessionId");
  });

  it("should report a refused request's path and message to onRequestEnd", async () => {
    const { handler, ends } = setup();
    await handler(
      post("/v1/messages?beta=true", { max_tokens: 5, messages: [{ role: "tool", content: "x" }] }),
    );
    expect(ends).toEqual([
      expect.objectContaining({
        status: 400,
        path: "/v1/messages",
        sessionId: "s-1",
        message: expect.stringMatching(
          /^messages\[0\]\.role: must be "user", "assistant" or "system", got "tool"/,
        ),
      }),
    ]);
  });
});
