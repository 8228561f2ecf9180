import { bytesDigest } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewaySession } from "../session/gateway-session";
import { createTestGateway, type TestGateway } from "../testing/create-test-gateway";

// biome-ignore lint/suspicious/noExplicitAny: replies are JSON read by known paths in assertions
type Json = any;

/** The first 33 bytes of a PNG (signature + IHDR): all the size reader needs. */
function pngHeader(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const view = new DataView(bytes.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  bytes.set([8, 2, 0, 0, 0], 24);
  return bytes;
}
const SCREEN = pngHeader(98, 70); // → 56×112 after resize, grid [1, 4, 8], 8 pads
const ZOOM = pngHeader(64, 96); // (w 64, h 96) → 84×56, grid [1, 6, 4], 6 pads
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const uri = (bytes: Uint8Array) => `data:image/png;base64,${b64(bytes)}`;
const PAD = 151655;

type Protocol = "chat" | "responses" | "anthropic";
const paths: Record<Protocol, string> = {
  chat: "/v1/chat/completions",
  responses: "/v1/responses",
  anthropic: "/v1/messages",
};

/** Turn 1: a user image; turn 2: the tool result of the model's call, holding an image. */
function bodies(protocol: Protocol, callId?: string) {
  if (protocol === "chat") {
    const user = {
      role: "user",
      content: [
        { type: "image_url", image_url: { url: uri(SCREEN), detail: "high" } },
        { type: "text", text: "What is on screen?" },
      ],
    };
    const turn2 = [
      user,
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: callId, type: "function", function: { name: "zoom", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: callId, content: [{ type: "image_url", image_url: { url: uri(ZOOM) } }] },
    ];
    return { model: "m", tools: [tool("chat")], messages: callId ? turn2 : [user] };
  }
  if (protocol === "responses") {
    const user = {
      role: "user",
      content: [
        { type: "input_image", image_url: uri(SCREEN) },
        { type: "input_text", text: "What is on screen?" },
      ],
    };
    const turn2 = [
      user,
      { type: "function_call", call_id: callId, name: "zoom", arguments: "{}" },
      {
        type: "function_call_output",
        call_id: callId,
        output: [{ type: "input_image", image_url: uri(ZOOM) }],
      },
    ];
    return { model: "m", tools: [tool("responses")], input: callId ? turn2 : [user] };
  }
  const user = {
    role: "user",
    content: [
      { type: "image", source: { type: "base64", media_type: "image/png", data: b64(SCREEN) } },
      { type: "text", text: "What is on screen?" },
    ],
  };
  const turn2 = [
    user,
    { role: "assistant", content: [{ type: "tool_use", id: callId, name: "zoom", input: {} }] },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: callId,
          content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: b64(ZOOM) } }],
        },
      ],
    },
  ];
  return { model: "m", max_tokens: 64, tools: [tool("anthropic")], messages: callId ? turn2 : [user] };
}
function tool(protocol: Protocol) {
  const parameters = { type: "object", properties: {} };
  if (protocol === "chat") return { type: "function", function: { name: "zoom", parameters } };
  if (protocol === "responses") return { type: "function", name: "zoom", parameters };
  return { name: "zoom", input_schema: parameters };
}
function callIdOf(protocol: Protocol, reply: Json): string {
  if (protocol === "chat") return reply.choices[0].message.tool_calls[0].id;
  if (protocol === "responses")
    return reply.output.find((item: Json) => item.type === "function_call").call_id;
  return reply.content.find((block: Json) => block.type === "tool_use").id;
}

function send(gateway: TestGateway, sessionId: string, protocol: Protocol, body: unknown) {
  return gateway.fetch(
    new Request(`http://gateway.test/agentic_api${paths[protocol]}`, {
      method: "POST",
      headers: { authorization: `Bearer ${sessionId}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}
function addSession(gateway: TestGateway, id: string) {
  const session = new GatewaySession({
    id,
    groupId: "g",
    mode: "train",
    forest: new SessionForest({ sessionId: id, renderer: gateway.renderer, maxContextTokens: 4096 }),
  });
  gateway.registry.add(session);
  session.lease();
  return session;
}

describe("images through the turn runner (stand-in engine, not a model)", () => {
  let vision: TestGateway;
  let text: TestGateway;
  beforeAll(async () => {
    const policy = ({ promptText }: { promptText: string }) =>
      promptText.includes("<tool_response>")
        ? "Zoomed."
        : '<tool_call>\n{"name": "zoom", "arguments": {}}\n</tool_call>';
    vision = await createTestGateway({ vision: true, toolCallParser: "qwen25", policy });
    text = await createTestGateway({ toolCallParser: "qwen25", policy });
  });
  afterAll(async () => {
    await vision.close();
    await text.close();
  });

  it.each(["chat", "responses", "anthropic"] as const)(
    "%s: should send image_data in order and train on expanded ids with multimodal_train_inputs",
    async (protocol) => {
      const session = addSession(vision, `img-${protocol}`);
      const from = vision.standin.calls.length;
      const first = await send(vision, session.id, protocol, bodies(protocol));
      expect(first.status).toBe(200);
      const callId = callIdOf(protocol, await first.json());
      const second = await send(vision, session.id, protocol, bodies(protocol, callId));
      expect(second.status).toBe(200);

      const generate = vision.standin.calls.slice(from).filter((call) => call.path === "/generate");
      const wire = generate.map((call) => call.body as { input_ids: number[]; image_data?: string[] });
      expect(wire.map((body) => body.image_data)).toEqual([[uri(SCREEN)], [uri(SCREEN), uri(ZOOM)]]);
      expect(wire.map((body) => body.input_ids.filter((id) => id === PAD).length)).toEqual([1, 2]);
      expect(session.forest.turns().map((turn) => turn.transition)).toEqual(["append", "append"]);

      const [leaf] = session.forest.exportableLeaves();
      const sample = session.forest.buildSample(leaf!.stateHash);
      const inference = wire[1]!.input_ids;
      const response = sample.tokens.slice(sample.tokens.length - 4);
      // Training ids: the inference ids with the two pads expanded to 8 and 6.
      const expanded = inference.flatMap((id, i) =>
        id !== PAD ? [id] : new Array(inference.slice(0, i).includes(PAD) ? 6 : 8).fill(PAD),
      );
      expect(sample.tokens).toEqual([...expanded, ...response]);
      expect(vision.tokenizer.decode(response, { skipSpecialTokens: false })).toBe("Zoomed.<|im_end|>");
      expect(
        sample.multimodalTrainInputs?.map(({ digest, gridThw, tokens, width, height }) => ({
          digest,
          gridThw,
          tokens,
          width,
          height,
        })),
      ).toEqual([
        { digest: bytesDigest(SCREEN), gridThw: [1, 4, 8], tokens: 8, width: 98, height: 70 },
        { digest: bytesDigest(ZOOM), gridThw: [1, 6, 4], tokens: 6, width: 64, height: 96 },
      ]);
      vision.registry.remove(session.id);
    },
  );

  it.each([
    ["chat", "messages[2].content[0]", "messages"],
    ["responses", "input[2].output[0]", "input"],
    ["anthropic", "messages[2].content[0].content[0]", undefined],
  ] as const)(
    "%s: a text-only template given an image in a tool result answers 400 naming %s",
    async (protocol, field, param) => {
      const session = addSession(text, `txt-${protocol}`);
      const body = bodies(protocol, "call_x") as Record<string, Json>;
      // Drop the user image so the first image of the request is the one in the tool result.
      if (protocol === "chat") body.messages[0].content = "What is on screen?";
      else if (protocol === "responses") body.input[0].content = "What is on screen?";
      else body.messages[0].content = "What is on screen?";
      const response = await send(text, session.id, protocol, body);
      expect(response.status).toBe(400);
      const reply = (await response.json()) as Json;
      const message = `${field}: this model's chat template reads text only and cannot take an image; serve a vision chat template with --processor-config`;
      if (protocol === "anthropic") {
        expect(reply).toEqual({ type: "error", error: { type: "invalid_request_error", message } });
      } else {
        expect(reply.error).toMatchObject({
          message,
          type: "invalid_request_error",
          param,
          code: "invalid_request_error",
        });
      }
      expect(session.forest.turns()).toEqual([]);
      text.registry.remove(session.id);
    },
  );

  it("should answer 400 naming the field for an image that is no image", async () => {
    const session = addSession(vision, "img-bad");
    const body = bodies("chat") as Record<string, Json>;
    body.messages[0].content[0].image_url.url = "data:image/png;base64,QUFBQQ==";
    const response = await send(vision, session.id, "chat", body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as Json).error).toMatchObject({
      message: "messages[0].content[0]: the bytes are not a supported image format",
      param: "messages",
    });
    vision.registry.remove(session.id);
  });
});
