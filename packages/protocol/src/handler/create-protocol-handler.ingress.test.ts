import { describe, expect, it } from "vitest";
import { TEXT_TURN } from "../../test/support/scripted-generate";
import { createProtocolHandler, type GenerateContext } from "./create-protocol-handler";
import { findTooDeep } from "./read-json-body";

const CHAT = "/v1/chat/completions";
const RESPONSES = "/v1/responses";
const MESSAGES = "/v1/messages";

/** A body stream that counts how many chunks were pulled from it. */
function countingBody(chunks: string[]) {
  const encoder = new TextEncoder();
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const chunk = chunks[pulled];
        pulled++;
        if (chunk === undefined) controller.close();
        else controller.enqueue(encoder.encode(chunk));
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled };
}

function request(path: string, body: BodyInit, headers: Record<string, string> = {}): Request {
  return new Request(`http://relax.test${path}`, {
    method: "POST",
    headers: { authorization: "Bearer s-1", "content-type": "application/json", ...headers },
    body,
    // A stream body needs half-duplex in undici.
    ...(typeof body === "string" ? {} : { duplex: "half" }),
  } as RequestInit);
}

function handlerWith(options: { maxRequestBytes?: number; maxJsonDepth?: number } = {}) {
  const contexts: GenerateContext[] = [];
  const handler = createProtocolHandler({
    generate: async (context) => {
      contexts.push(context);
      return TEXT_TURN;
    },
    authenticate: (id) => id === "s-1",
    ...options,
  });
  return { handler, contexts };
}

/** `[ [ … 1 … ] ]` nested `depth` arrays deep, as text (JSON.stringify would recurse). */
function nestedArrays(depth: number): string {
  return `${"[".repeat(depth)}1${"]".repeat(depth)}`;
}

describe("createProtocolHandler: the credential comes before the body", () => {
  it("should answer 401 without reading a byte of the body when the credential is missing", async () => {
    const { handler } = handlerWith();
    const body = countingBody(["{not json"]);
    const response = await handler(
      new Request(`http://relax.test${CHAT}`, {
        method: "POST",
        body: body.stream,
        duplex: "half",
      } as RequestInit),
    );
    expect(response.status).toBe(401);
    expect(body.pulled()).toBe(0);
  });

  it("should answer 404 session_discarded for an unknown session without reading the (invalid) body", async () => {
    const { handler, contexts } = handlerWith();
    const body = countingBody(["{not json"]);
    const response = await handler(request(CHAT, body.stream, { authorization: "Bearer gone" }));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        message: "session not found or already closed",
        type: "not_found_error",
        param: null,
        code: "session_discarded",
      },
    });
    expect(body.pulled()).toBe(0);
    expect(contexts).toHaveLength(0);
  });
});

describe("createProtocolHandler: --max-request-bytes", () => {
  const big = JSON.stringify({ messages: [{ role: "user", content: "x".repeat(200) }] });

  it("should refuse a declared content-length over the limit with 413 before reading (Chat Completions body)", async () => {
    const { handler, contexts } = handlerWith({ maxRequestBytes: 100 });
    const body = countingBody([big]);
    const response = await handler(request(CHAT, body.stream, { "content-length": String(big.length) }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: {
        message: `request body of ${big.length} bytes exceeds the gateway limit of 100 bytes (--max-request-bytes)`,
        type: "invalid_request_error",
        param: null,
        code: "request_too_large",
      },
    });
    expect(body.pulled()).toBe(0);
    expect(contexts).toHaveLength(0);
  });

  it("should read a body within its declared content-length whole, and refuse one longer than it declares", async () => {
    const small = JSON.stringify({ messages: [{ role: "user", content: "hi" }] });
    const within = handlerWith({ maxRequestBytes: 100 });
    const declared = { "content-length": String(small.length) };
    expect((await within.handler(request(CHAT, small, declared))).status).toBe(200);
    expect(within.contexts[0]!.request.messages).toEqual([{ role: "user", content: "hi" }]);
    // An in-process Request (no HTTP parser) may declare less than it carries: the limit still holds.
    const { handler, contexts } = handlerWith({ maxRequestBytes: 100 });
    const response = await handler(request(CHAT, big, { "content-length": "50" }));
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "request body exceeds the gateway limit of 100 bytes (--max-request-bytes)",
    );
    expect(contexts).toHaveLength(0);
  });

  it("should stop reading a chunked body once it passes the limit (Anthropic body: request_too_large)", async () => {
    const { handler } = handlerWith({ maxRequestBytes: 100 });
    const body = countingBody(["x".repeat(60), "x".repeat(60), "x".repeat(60), "x".repeat(60)]);
    const response = await handler(request(MESSAGES, body.stream));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      type: "error",
      error: {
        type: "request_too_large",
        message: "request body exceeds the gateway limit of 100 bytes (--max-request-bytes)",
      },
    });
    // Two chunks (120 bytes) pass the limit; the third and fourth are never pulled (one may be read ahead).
    expect(body.pulled()).toBeLessThanOrEqual(3);
  });

  it("should render the 413 in the Responses format", async () => {
    const { handler } = handlerWith({ maxRequestBytes: 100 });
    const response = await handler(request(RESPONSES, JSON.stringify({ input: "y".repeat(200) })));
    expect(response.status).toBe(413);
    const json = (await response.json()) as { error: Record<string, unknown> };
    expect(json.error.code).toBe("request_too_large");
    expect(json.error.type).toBe("invalid_request_error");
  });

  it("should accept a body of exactly the limit", async () => {
    const body = JSON.stringify({ messages: [{ role: "user", content: "hi" }] });
    const { handler, contexts } = handlerWith({ maxRequestBytes: body.length });
    const response = await handler(request(CHAT, body));
    expect(response.status).toBe(200);
    expect(contexts).toHaveLength(1);
  });
});

describe("createProtocolHandler: nesting depth", () => {
  const DEEP = 100_000;

  it("should answer 400 naming tools[0].function.parameters for a 10^5-deep tool schema, not a stack overflow", async () => {
    const { handler, contexts } = handlerWith();
    const body = `{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"a":${nestedArrays(DEEP)}}}}}]}`;
    const response = await handler(request(CHAT, body));
    expect(response.status).toBe(400);
    const json = (await response.json()) as { error: Record<string, unknown> };
    expect(json.error.param).toBe("tools");
    expect(json.error.code).toBe("invalid_request_error");
    expect(json.error.message).toBe(
      "tools[0].function.parameters.properties.a[0][0][0][0][0][0]…: nests arrays/objects deeper than 128 levels (--max-json-depth)",
    );
    expect(contexts).toHaveLength(0);
  });

  it("should answer 400 naming chat_template_kwargs", async () => {
    const { handler } = handlerWith();
    const body = `{"messages":[{"role":"user","content":"hi"}],"chat_template_kwargs":{"x":${nestedArrays(DEEP)}}}`;
    const response = await handler(request(CHAT, body));
    expect(response.status).toBe(400);
    const json = (await response.json()) as { error: Record<string, unknown> };
    expect(json.error.param).toBe("chat_template_kwargs");
  });

  it("should answer 400 naming response_format", async () => {
    const { handler } = handlerWith();
    const body = `{"messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":${nestedArrays(DEEP)}}}}`;
    const response = await handler(request(CHAT, body));
    expect(response.status).toBe(400);
    const json = (await response.json()) as { error: Record<string, unknown> };
    expect(json.error.param).toBe("response_format");
  });

  it("should answer 400 in the Anthropic format for input_schema and tool_use.input", async () => {
    const { handler } = handlerWith();
    const schema = `{"max_tokens":8,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":${nestedArrays(DEEP)}}]}`;
    const first = await handler(request(MESSAGES, schema));
    expect(first.status).toBe(400);
    expect(await first.json()).toEqual({
      type: "error",
      error: {
        type: "invalid_request_error",
        message:
          "tools[0].input_schema[0][0][0][0][0][0][0][0][0]…: nests arrays/objects deeper than 128 levels (--max-json-depth)",
      },
    });
    const toolUse = `{"max_tokens":8,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"q":${nestedArrays(DEEP)}}}]}]}`;
    const second = await handler(request(MESSAGES, toolUse));
    expect(second.status).toBe(400);
    const json = (await second.json()) as { error: { message: string } };
    expect(json.error.message.startsWith("messages[1].content[0].input.q[0]")).toBe(true);
  });

  it("should accept a body exactly at maxJsonDepth and refuse one level more", async () => {
    // body(1) → messages(2) → [0](3) → content(4) → [0](5)
    const at = JSON.stringify({ messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
    const { handler } = handlerWith({ maxJsonDepth: 5 });
    expect((await handler(request(CHAT, at))).status).toBe(200);
    const deeper = JSON.stringify({
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      metadata: { a: { b: { c: { d: {} } } } },
    });
    const response = await handler(request(CHAT, deeper));
    expect(response.status).toBe(400);
    const json = (await response.json()) as { error: Record<string, unknown> };
    expect(json.error.message).toBe(
      "metadata.a.b.c.d: nests arrays/objects deeper than 5 levels (--max-json-depth)",
    );
  });
});

describe("findTooDeep", () => {
  it("should return the path of the first container past the limit, and undefined within it", () => {
    expect(findTooDeep({ a: [{ b: [] }] }, 4)).toBeUndefined();
    expect(findTooDeep({ a: [{ b: [] }] }, 3)).toEqual(["a", 0, "b"]);
    expect(findTooDeep("text", 1)).toBeUndefined();
    expect(findTooDeep([[1]], 1)).toEqual([0]);
  });
});
