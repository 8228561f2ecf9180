import { SessionForest } from "@relax/forest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewaySession } from "../session/gateway-session";
import { createTestGateway, type TestGateway } from "../testing/create-test-gateway";

/**
 * Stop strings end a turn on the stand-in engine (not a model), which reports the matched string in
 * `meta_info.finish_reason.matched` as SGLang does; each protocol says so in its own words.
 */
let gateway: TestGateway;
let counter = 0;

beforeAll(async () => {
  // The stop string " Done" ends the turn: the stand-in stops at the first token whose text completes it.
  gateway = await createTestGateway({ policy: () => "Answer 1. Done. More text." });
});
afterAll(async () => {
  await gateway.close();
});

function openSession(): string {
  const id = `stop-${++counter}`;
  const session = new GatewaySession({
    id,
    groupId: "g-stop",
    mode: "train",
    forest: new SessionForest({ sessionId: id, renderer: gateway.renderer, maxContextTokens: 4096 }),
  });
  gateway.registry.add(session);
  session.lease();
  return id;
}

async function post(path: string, body: unknown): Promise<{ status: number; text: string }> {
  const response = await gateway.fetch(
    new Request(`http://gateway.test/agentic_api${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${openSession()}` },
      body: JSON.stringify(body),
    }),
  );
  return { status: response.status, text: await response.text() };
}

const messagesBody = {
  model: "qwen3-8b",
  max_tokens: 64,
  stop_sequences: [" Done", "never"],
  messages: [{ role: "user", content: "Say it." }],
};

describe("stop strings over every protocol", () => {
  it("should send the stop strings to /generate and read the matched one back", async () => {
    const from = gateway.standin.calls.length;
    await post("/v1/messages", messagesBody);
    const sent = gateway.standin.calls.slice(from).find((call) => call.path === "/generate");
    expect((sent!.body as { sampling_params: { stop: string[] } }).sampling_params.stop).toEqual([
      " Done",
      "never",
    ]);
  });

  it('should answer an Anthropic Messages request with stop_reason "stop_sequence" and the matched string', async () => {
    const { status, text } = await post("/v1/messages", messagesBody);
    expect(status).toBe(200);
    const reply = JSON.parse(text) as Record<string, unknown>;
    // The text is the decode of the generated tokens: the stop string stays (docs/contract.md).
    expect(reply.content).toEqual([{ type: "text", text: "Answer 1. Done" }]);
    expect(text).toContain('"stop_reason":"stop_sequence","stop_sequence":" Done","usage":');
  });

  it("should write the matched string in the stream's message_delta, byte for byte", async () => {
    const { status, text } = await post("/v1/messages", { ...messagesBody, stream: true });
    expect(status).toBe(200);
    const frames = text.split("\n\n");
    const delta = frames.find((frame) => frame.startsWith("event: message_delta"));
    expect(delta).toMatch(
      /^event: message_delta\ndata: \{"type":"message_delta","delta":\{"stop_reason":"stop_sequence","stop_sequence":" Done"\},"usage":\{"input_tokens":\d+,"output_tokens":\d+[^}]*\}\}$/,
    );
    const start = frames.find((frame) => frame.startsWith("event: message_start"));
    expect(start).toContain('"stop_reason":null,"stop_sequence":null');
  });

  it('should still say "end_turn" with stop_sequence null when no stop string matched', async () => {
    const { text } = await post("/v1/messages", { ...messagesBody, stop_sequences: ["never"] });
    expect(text).toContain('"stop_reason":"end_turn","stop_sequence":null,"usage":');
    expect((JSON.parse(text) as { content: unknown }).content).toEqual([
      { type: "text", text: "Answer 1. Done. More text." },
    ]);
  });

  it('should answer Chat Completions with finish_reason "stop" for a stop string', async () => {
    const { text } = await post("/v1/chat/completions", {
      model: "qwen3-8b",
      stop: [" Done"],
      messages: [{ role: "user", content: "Say it." }],
    });
    const reply = JSON.parse(text) as { choices: Array<{ finish_reason: string; message: unknown }> };
    expect(reply.choices[0]!.finish_reason).toBe("stop");
    expect(text).toContain(
      '"message":{"role":"assistant","content":"Answer 1. Done"},"logprobs":null,"finish_reason":"stop"}',
    );
  });
});
