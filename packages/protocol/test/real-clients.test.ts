import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProtocolHandler } from "../src/index";
import { counterIds, LENGTH_TURN, scriptedGenerate, TEXT_TURN, TOOL_TURN } from "./support/scripted-generate";
import { serveHandler, type TestServer } from "./support/serve-handler";

const WEATHER_TOOL_CHAT = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Current weather in a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, unit: { type: "string" } },
      required: ["city"],
    },
  },
};

let server: TestServer;
let script: ReturnType<typeof scriptedGenerate>;

beforeAll(async () => {
  script = scriptedGenerate([]);
  const handler = createProtocolHandler({
    generate: script.generate,
    createId: counterIds(),
    now: () => 1_767_225_600_000,
    models: () => [{ id: "qwen3-8b", created: 1_767_225_600 }],
  });
  server = await serveHandler(handler);
});

afterAll(async () => {
  await server.close();
});

function openai(): OpenAI {
  return new OpenAI({
    baseURL: `${server.url}/v1`,
    apiKey: "session-openai",
    maxRetries: 0,
    timeout: 10_000,
  });
}

describe("openai SDK: chat.completions", () => {
  it("should receive content, reasoning, tool calls and finish reason without stream", async () => {
    script.queue.push(TOOL_TURN);
    const completion = await openai().chat.completions.create({
      model: "qwen3-8b",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [WEATHER_TOOL_CHAT],
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBe("Let me check the weather.");
    expect((choice.message as unknown as { reasoning_content: string }).reasoning_content).toBe(
      "The user wants the weather in Paris; call get_weather.",
    );
    expect(choice.message.tool_calls).toEqual([
      {
        id: "call_7f3a9c",
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' },
      },
    ]);
    expect(completion.usage).toEqual({
      prompt_tokens: 120,
      completion_tokens: 34,
      total_tokens: 154,
      prompt_tokens_details: { cached_tokens: 96 },
    });
    expect(script.calls.at(-1)?.sessionId).toBe("session-openai");
    expect(script.calls.at(-1)?.protocol).toBe("chat-completions");
  });

  it("should fold the stream into the same completion with ChatCompletionStream", async () => {
    script.queue.push(TOOL_TURN);
    const stream = openai().chat.completions.stream({
      model: "qwen3-8b",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [WEATHER_TOOL_CHAT],
    });
    const final = await stream.finalChatCompletion();
    const choice = final.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBe("Let me check the weather.");
    expect(choice.message.tool_calls?.[0]).toMatchObject({
      id: "call_7f3a9c",
      type: "function",
      function: { name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' },
    });
    expect(final.usage?.total_tokens).toBe(154);
  });

  it("should stream raw chunks ending with usage on the last chunk", async () => {
    script.queue.push(TEXT_TURN);
    const chunks = [];
    const stream = await openai().chat.completions.create({
      model: "qwen3-8b",
      messages: [{ role: "user", content: "Weather?" }],
      stream: true,
    });
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
    const reasoning = chunks
      .map(
        (chunk) =>
          (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? "",
      )
      .join("");
    expect(text).toBe("It is 18 °C and sunny in Paris.");
    expect(reasoning).toBe("The tool said 18 and sunny.");
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 170, completion_tokens: 12, total_tokens: 182 });
    expect(script.calls.at(-1)?.request.stream).toBe(true);
  });

  it("should surface an in-stream error as an APIError", async () => {
    const stream = await openai().chat.completions.create({
      model: "qwen3-8b",
      messages: [{ role: "user", content: "no turn queued" }],
      stream: true,
    });
    await expect(async () => {
      for await (const _ of stream) {
        // drain
      }
    }).rejects.toThrow("internal error: scripted generate: no turn left");
  });

  it("should report a 400 with the field path as a BadRequestError", async () => {
    const error = await openai()
      .chat.completions.create({
        model: "qwen3-8b",
        messages: [
          {
            role: "assistant",
            content: "",
            tool_calls: [{ id: "", type: "function", function: { name: "f", arguments: "{}" } }],
          },
        ],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("messages");
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toBe(
      "400 messages[0].tool_calls[0].id: must be a non-empty string",
    );
  });

  it("should list models", async () => {
    const page = await openai().models.list();
    expect(page.data.map((model) => model.id)).toEqual(["qwen3-8b"]);
  });
});

describe("openai SDK: responses", () => {
  it("should receive reasoning, message and function call items without stream", async () => {
    script.queue.push(TOOL_TURN);
    const response = await openai().responses.create({
      model: "qwen3-8b",
      input: "Weather in Paris?",
      tools: [
        {
          type: "function",
          name: "get_weather",
          parameters: WEATHER_TOOL_CHAT.function.parameters,
          strict: false,
        },
      ],
    });
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("Let me check the weather.");
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call"]);
    const reasoning = response.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.content).toEqual([
      { type: "reasoning_text", text: "The user wants the weather in Paris; call get_weather." },
    ]);
    expect(response.output[2]).toMatchObject({
      type: "function_call",
      call_id: "call_7f3a9c",
      name: "get_weather",
      arguments: '{"city":"Paris","unit":"celsius"}',
    });
    expect(response.usage).toMatchObject({ input_tokens: 120, output_tokens: 34, total_tokens: 154 });
  });

  it("should fold the event stream into the same Response with ResponseStream", async () => {
    script.queue.push(TOOL_TURN);
    const events: string[] = [];
    const stream = openai().responses.stream({ model: "qwen3-8b", input: "Weather in Paris?" });
    stream.on("event", (event) => events.push(event.type));
    const final = await stream.finalResponse();
    expect(final.status).toBe("completed");
    expect(final.output_text).toBe("Let me check the weather.");
    expect(final.output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call"]);
    expect(final.output[2]).toMatchObject({
      call_id: "call_7f3a9c",
      arguments: '{"city":"Paris","unit":"celsius"}',
    });
    expect(events[0]).toBe("response.created");
    expect(events).toContain("response.output_text.delta");
    expect(events).toContain("response.reasoning_text.delta");
    expect(events).toContain("response.function_call_arguments.done");
    expect(events.at(-1)).toBe("response.completed");
  });

  it("should report a length cut as incomplete with max_output_tokens", async () => {
    script.queue.push(LENGTH_TURN);
    const stream = await openai().responses.create({
      model: "qwen3-8b",
      input: "Tell me the history of Paris",
      max_output_tokens: 5,
      stream: true,
    });
    const types: string[] = [];
    let last: OpenAI.Responses.ResponseStreamEvent | undefined;
    for await (const event of stream) {
      types.push(event.type);
      last = event;
    }
    expect(types.at(-1)).toBe("response.incomplete");
    expect(last?.type === "response.incomplete" && last.response.incomplete_details).toEqual({
      reason: "max_output_tokens",
    });
    expect(script.calls.at(-1)?.request.maxTokens).toBe(5);
  });
});

describe("@anthropic-ai/sdk: messages", () => {
  const tools = [
    {
      name: "get_weather",
      description: "Current weather in a city",
      input_schema: WEATHER_TOOL_CHAT.function.parameters as Anthropic.Tool.InputSchema,
    },
  ];

  it("should receive thinking, text, tool_use and stop reason with messages.create (x-api-key)", async () => {
    script.queue.push(TOOL_TURN);
    const client = new Anthropic({ baseURL: server.url, apiKey: "session-anthropic", maxRetries: 0 });
    const message = await client.messages.create({
      model: "qwen3-8b",
      max_tokens: 512,
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools,
    });
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([
      {
        type: "thinking",
        thinking: "The user wants the weather in Paris; call get_weather.",
        signature: expect.stringMatching(/^sig_/),
      },
      { type: "text", text: "Let me check the weather." },
      { type: "tool_use", id: "call_7f3a9c", name: "get_weather", input: { city: "Paris", unit: "celsius" } },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 24, cache_read_input_tokens: 96, output_tokens: 34 });
    expect(script.calls.at(-1)?.sessionId).toBe("session-anthropic");
  });

  it("should fold messages.stream into the same message (Bearer auth token)", async () => {
    script.queue.push(TOOL_TURN);
    const client = new Anthropic({
      baseURL: server.url,
      authToken: "session-bearer",
      apiKey: null,
      maxRetries: 0,
    });
    const stream = client.messages.stream({
      model: "qwen3-8b",
      max_tokens: 512,
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools,
      thinking: { type: "enabled", budget_tokens: 256 },
    });
    const texts: string[] = [];
    stream.on("text", (text) => texts.push(text));
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "text", "tool_use"]);
    expect(message.content[2]).toEqual({
      type: "tool_use",
      id: "call_7f3a9c",
      name: "get_weather",
      input: { city: "Paris", unit: "celsius" },
    });
    expect(texts.join("")).toBe("Let me check the weather.");
    expect(message.usage.output_tokens).toBe(34);
    expect(script.calls.at(-1)?.sessionId).toBe("session-bearer");
    expect(script.calls.at(-1)?.request.chatTemplateKwargs).toEqual({ enable_thinking: true });
  });

  it("should report max_tokens for a length cut", async () => {
    script.queue.push(LENGTH_TURN);
    const client = new Anthropic({ baseURL: server.url, apiKey: "s", maxRetries: 0 });
    const message = await client.messages
      .stream({
        model: "qwen3-8b",
        max_tokens: 5,
        messages: [{ role: "user", content: "History of Paris" }],
      })
      .finalMessage();
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.content).toEqual([{ type: "text", text: "The history of Paris begins" }]);
  });

  it("should throw the in-stream error event as an APIError", async () => {
    const client = new Anthropic({ baseURL: server.url, apiKey: "s", maxRetries: 0 });
    await expect(
      client.messages
        .stream({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] })
        .finalMessage(),
    ).rejects.toThrow("internal error: scripted generate: no turn left");
  });

  it("should accept Claude Code's POST /v1/messages?beta=true with x-api-key", async () => {
    script.queue.push(TEXT_TURN);
    const response = await fetch(`${server.url}/v1/messages?beta=true`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": "session-claude-code",
        "anthropic-version": "2023-06-01",
      },
      body: JSON.stringify({
        model: "claude-opus-5-5",
        max_tokens: 32000,
        stream: true,
        system: [{ type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } }],
        messages: [
          { role: "user", content: [{ type: "text", text: "say hi", cache_control: { type: "ephemeral" } }] },
        ],
        metadata: { user_id: "u" },
      }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text.startsWith('event: ping\ndata: {"type":"ping"}\n\nevent: message_start\n')).toBe(true);
    expect(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
    expect(script.calls.at(-1)?.sessionId).toBe("session-claude-code");
  });
});
