import { buildToolCallStructuralTag } from "@relax/chat";
import { readAnswerSchema, type StandinPolicy } from "@relax/standin";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, type TestGateway } from "../testing/create-test-gateway";

/**
 * An app that sends tools and a response format on every request (as `@openai/agents` does with
 * `outputType`): with real constrained decoding a `json_schema` would forbid the tool call, so the gateway
 * sends a `structural_tag` (tool calls OR the answer). The stand-in engine (a scripted policy, not a
 * model) enforces what it is sent: the policy's tool call and its JSON answer must both fit the tag.
 */
const schema = {
  type: "object",
  properties: { city: { type: "string" }, forecast: { type: "string" } },
  required: ["city", "forecast"],
  additionalProperties: false,
};
const tools = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      description: "Weather for a city.",
      parameters: {
        type: "object",
        properties: { city: { type: "string" } },
        required: ["city"],
        additionalProperties: false,
      },
    },
  },
];
const CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
const ANSWER = '{"city": "Paris", "forecast": "sunny"}';

/** Calls the tool until a tool result is in the prompt, then answers in the request's answer schema. */
const weatherPolicy: StandinPolicy = ({ promptText, sampling }) => {
  if (!promptText.includes("<tool_response>")) return CALL;
  return readAnswerSchema(sampling) === undefined ? "It is sunny." : ANSWER;
};

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await createTestGateway({
    policy: weatherPolicy,
    toolCallParser: "qwen25",
    turns: { reasoningParser: "qwen3" },
    maxResponseLen: 128,
  });
});
afterAll(async () => {
  await gateway.close();
});

const client = (sessionId: string) =>
  new OpenAI({
    apiKey: sessionId,
    baseURL: "http://gateway.test/agentic_api/v1",
    fetch: (input: string | URL | Request, init?: RequestInit) => gateway.fetch(new Request(input, init)),
    maxRetries: 0,
  });

const generateBodies = (from: number) =>
  gateway.standin.calls
    .slice(from)
    .filter((call) => call.path === "/generate")
    .map((call) => call.body as { input_ids: number[]; sampling_params: Record<string, unknown> });

describe("structured output beside tools (stand-in engine, not a model)", () => {
  it("should send structural_tag on every turn: turn 1 calls the tool, turn 2 answers JSON in the schema", async () => {
    const session = gateway.openSession("beside-tools");
    const from = gateway.standin.calls.length;
    const openai = client(session.id);
    const response_format = {
      type: "json_schema" as const,
      json_schema: { name: "weather", schema, strict: true },
    };
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "user", content: "What is the weather in Paris? Answer as JSON." },
    ];
    const first = await openai.chat.completions.create({ model: "m", messages, tools, response_format });
    const call = first.choices[0]!.message.tool_calls?.[0];
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(call).toMatchObject({
      type: "function",
      function: { name: "get_weather", arguments: '{"city":"Paris"}' },
    });
    messages.push(first.choices[0]!.message, {
      role: "tool",
      tool_call_id: call!.id,
      content: "sunny, 24 °C",
    });
    const second = await openai.chat.completions.create({ model: "m", messages, tools, response_format });
    expect(second.choices[0]!.finish_reason).toBe("stop");
    expect(JSON.parse(second.choices[0]!.message.content!)).toEqual({ city: "Paris", forecast: "sunny" });

    // Both engine calls carried the structural tag (qwen25 calls or the answer, an optional <think> first
    // for the qwen3 reasoning parser), never json_schema.
    const bodies = generateBodies(from);
    expect(bodies).toHaveLength(2);
    const expected = JSON.stringify(
      buildToolCallStructuralTag({
        toolCallParser: "qwen25",
        tools,
        responseSchema: schema,
        reasoningParser: "qwen3",
        promptTail: "<|im_start|>assistant\n",
      }),
    );
    for (const body of bodies) {
      expect(body.sampling_params).not.toHaveProperty("json_schema");
      expect(body.sampling_params.structural_tag).toBe(expected);
    }
    const tag = JSON.parse(expected);
    expect(tag.format.elements[1].elements[0].content.tags[0].begin).toBe(
      '{"name": "get_weather", "arguments": ',
    );
    expect(tag.format.elements[1].elements[1]).toEqual({ type: "json_schema", json_schema: schema });

    // One trained context: both turns, the generated ids (call + <|im_end|>, answer + <|im_end|>) masked in.
    const forest = session.forest;
    const sample = forest.buildSample(forest.implicitExportLeaf().stateHash);
    expect(sample.turnCount).toBe(2);
    const text = gateway.tokenizer.decode(sample.tokens, { skipSpecialTokens: false });
    expect(text).toContain(`${CALL}<|im_end|>`);
    expect(text.endsWith(`${ANSWER}<|im_end|>`)).toBe(true);
    const generated = [CALL, ANSWER].reduce((sum, out) => sum + gateway.tokenizer.encode(out).length + 1, 0);
    expect(sample.lossMask.reduce((sum, bit) => sum + bit, 0)).toBe(generated);
  });

  it("should send json_schema when tool_choice is none, and the engine enforces it", async () => {
    const session = gateway.openSession("beside-tools-none");
    const from = gateway.standin.calls.length;
    const reply = client(session.id).chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools,
      tool_choice: "none",
      response_format: { type: "json_schema", json_schema: { name: "weather", schema } },
    });
    // The policy still writes a tool call (it has no tool result yet): the constraint refuses it.
    await expect(reply).rejects.toThrow(/json_schema/);
    const [body] = generateBodies(from);
    expect(body!.sampling_params.json_schema).toBe(JSON.stringify(schema));
    expect(body!.sampling_params).not.toHaveProperty("structural_tag");
  });
});
