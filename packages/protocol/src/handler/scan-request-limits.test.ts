import { describe, expect, it } from "vitest";
import { TEXT_TURN } from "../../test/support/scripted-generate";
import { createProtocolHandler, type GenerateContext } from "./create-protocol-handler";
import { findTooDeep } from "./read-json-body";
import {
  DEFAULT_REQUEST_LIMITS,
  RequestLimitScan,
  type RequestLimits,
  SCAN_SLICE_CHARS,
  scanRequestLimits,
  scanRequestLimitsYielding,
} from "./scan-request-limits";

const CHAT = "/v1/chat/completions";
const RESPONSES = "/v1/responses";
const MESSAGES = "/v1/messages";

function request(path: string, body: string): Request {
  return new Request(`http://relax.test${path}`, {
    method: "POST",
    headers: { authorization: "Bearer s-1", "content-type": "application/json" },
    body,
  });
}

function handlerWith(requestLimits?: Partial<RequestLimits>) {
  const contexts: GenerateContext[] = [];
  const handler = createProtocolHandler({
    generate: async (context) => {
      contexts.push(context);
      return TEXT_TURN;
    },
    authenticate: (id) => id === "s-1",
    ...(requestLimits !== undefined ? { requestLimits } : {}),
  });
  return { handler, contexts };
}

const userMessages = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: `m${i}` }));

/** A tool schema whose `properties` hold `count` string properties: 2 + 2·count + … values. */
function wideSchema(count: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) properties[`p${i}`] = { type: "string" };
  return { type: "object", properties };
}

describe("request limits: --max-request-messages", () => {
  it("should refuse 10^5 Chat Completions messages with 400 naming the first item past the default limit", async () => {
    const { handler, contexts } = handlerWith();
    const started = performance.now();
    const response = await handler(request(CHAT, JSON.stringify({ messages: userMessages(100_000) })));
    const elapsedMs = performance.now() - started;
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message: "messages[10000]: a request holds at most 10000 messages (--max-request-messages raises it)",
        type: "invalid_request_error",
        param: "messages",
        code: "request_limit_exceeded",
      },
    });
    expect(contexts).toHaveLength(0);
    // The scan stops at item 10,000; generous bound for a loaded 2-core machine (unbounded work took 68 s).
    expect(elapsedMs).toBeLessThan(1_000);
  });

  it("should accept exactly the limit and refuse one more (Responses input items)", async () => {
    const { handler, contexts } = handlerWith({ maxMessages: 3 });
    const input = (count: number) =>
      JSON.stringify({ input: userMessages(count).map((m) => ({ type: "message", ...m })) });
    expect((await handler(request(RESPONSES, input(3)))).status).toBe(200);
    const response = await handler(request(RESPONSES, input(4)));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message: "input[3]: a request holds at most 3 input items (--max-request-messages raises it)",
        type: "invalid_request_error",
        param: "input",
        code: "request_limit_exceeded",
      },
    });
    expect(contexts).toHaveLength(1);
  });

  it("should answer in the Anthropic format", async () => {
    const { handler } = handlerWith({ maxMessages: 2 });
    const response = await handler(
      request(MESSAGES, JSON.stringify({ max_tokens: 8, messages: userMessages(5) })),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "messages[2]: a request holds at most 2 messages (--max-request-messages raises it)",
      },
    });
  });
});

describe("request limits: --max-request-content-parts", () => {
  it("should count parts across messages and Anthropic's system blocks", async () => {
    const { handler } = handlerWith({ maxContentParts: 4 });
    const text = (t: string) => ({ type: "text", text: t });
    const body = {
      max_tokens: 8,
      system: [text("s0"), text("s1")],
      messages: [
        { role: "user", content: [text("a")] },
        { role: "assistant", content: [text("b"), text("c")] },
      ],
    };
    const response = await handler(request(MESSAGES, JSON.stringify(body)));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: "error",
      error: {
        type: "invalid_request_error",
        message:
          "messages[1].content[1]: a request holds at most 4 content parts in all (--max-request-content-parts raises it)",
      },
    });
    const within = { ...body, messages: body.messages.slice(0, 1) };
    expect((await handler(request(MESSAGES, JSON.stringify(within)))).status).toBe(200);
  });

  it("should refuse 10^5 parts in one Chat Completions message", async () => {
    const { handler } = handlerWith();
    const content = Array.from({ length: 100_000 }, () => ({ type: "text", text: "x" }));
    const response = await handler(request(CHAT, JSON.stringify({ messages: [{ role: "user", content }] })));
    expect(response.status).toBe(400);
    const json = (await response.json()) as { error: Record<string, unknown> };
    expect(json.error).toEqual({
      message:
        "messages[0].content[20000]: a request holds at most 20000 content parts in all (--max-request-content-parts raises it)",
      type: "invalid_request_error",
      param: "messages",
      code: "request_limit_exceeded",
    });
  });
});

describe("request limits: --max-tool-schema-nodes", () => {
  it("should refuse a 50k-property Chat Completions tool schema, naming the property where the count passed the limit", async () => {
    const { handler, contexts } = handlerWith();
    const tools = [{ type: "function", function: { name: "f", parameters: wideSchema(50_000) } }];
    const body = JSON.stringify({ messages: [{ role: "user", content: "hi" }], tools });
    const response = await handler(request(CHAT, body));
    expect(response.status).toBe(400);
    // Values: tools[0] 1, type 2, function 3, name 4, parameters 5, type 6, properties 7, then 2 per
    // property: the 20,001st value is property p9996's object.
    expect(await response.json()).toEqual({
      error: {
        message:
          "tools[0].function.parameters.properties.p9996.type: the tool definitions hold at most 20000 JSON values in all (--max-tool-schema-nodes raises it)",
        type: "invalid_request_error",
        param: "tools",
        code: "request_limit_exceeded",
      },
    });
    expect(contexts).toHaveLength(0);
  });

  it("should count all tools together, at the limit accepted (Responses and Anthropic)", async () => {
    // Responses: {type, name, parameters:{type, properties:{a:{type}}}} = 1+1+1+1+1+1+1+1 = 8 values.
    const tool = (name: string) => ({
      type: "function",
      name,
      parameters: { type: "object", properties: { a: { type: "string" } } },
    });
    const { handler } = handlerWith({ maxToolSchemaNodes: 16 });
    const ok = JSON.stringify({ input: "hi", tools: [tool("f"), tool("g")] });
    expect((await handler(request(RESPONSES, ok))).status).toBe(200);
    const over = await handler(
      request(RESPONSES, JSON.stringify({ input: "hi", tools: [tool("f"), tool("g"), tool("h")] })),
    );
    expect(over.status).toBe(400);
    expect(((await over.json()) as { error: { message: string } }).error.message).toBe(
      "tools[2]: the tool definitions hold at most 16 JSON values in all (--max-tool-schema-nodes raises it)",
    );
    const anthropic = await handler(
      request(
        MESSAGES,
        JSON.stringify({
          max_tokens: 8,
          messages: [{ role: "user", content: "hi" }],
          tools: [{ name: "f", input_schema: wideSchema(10) }],
        }),
      ),
    );
    // {name, input_schema:{type, properties:{10 × {type}}}} = 1+1+1+1+1+20 = 25 values > 16.
    expect(anthropic.status).toBe(400);
    expect(await anthropic.json()).toEqual({
      type: "error",
      error: {
        type: "invalid_request_error",
        message:
          "tools[0].input_schema.properties.p5.type: the tool definitions hold at most 16 JSON values in all (--max-tool-schema-nodes raises it)",
      },
    });
  });
});

describe("request limits: --max-request-chars", () => {
  it("should refuse a 5 MiB word at the default limit, naming its field", async () => {
    const { handler, contexts } = handlerWith();
    const body = JSON.stringify({ messages: [{ role: "user", content: "z".repeat(5 * 1024 * 1024) }] });
    const response = await handler(request(CHAT, body));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message:
          "messages[0].content: the request's strings hold more than 4194304 characters in all (--max-request-chars raises it)",
        type: "invalid_request_error",
        param: "messages",
        code: "request_limit_exceeded",
      },
    });
    expect(contexts).toHaveLength(0);
  });

  it("should count every string as written but not image payloads", async () => {
    const { handler } = handlerWith({ maxChars: 20 });
    const image = { type: "image_url", image_url: { url: `data:image/png;base64,${"A".repeat(1000)}` } };
    // "user" 4 + "image_url" 9 + "text" 4 + "abc" 3 = 20 characters: at the limit.
    const at = { messages: [{ role: "user", content: [image, { type: "text", text: "abc" }] }] };
    const response = await handler(request(CHAT, JSON.stringify(at)));
    // 200 or a later 400 from the stub's missing image support, but never the limit.
    const json = (await response.json()) as { error?: { code?: string } };
    expect(json.error?.code).not.toBe("request_limit_exceeded");
    const over = { messages: [{ role: "user", content: [image, { type: "text", text: 'ab"' }] }] };
    // 'ab"' is written `ab\"`: 4 characters as written → 21.
    const refused = await handler(request(CHAT, JSON.stringify(over)));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      "messages[0].content[1].text: the request's strings hold more than 20 characters in all (--max-request-chars raises it)",
    );
  });
});

describe("scanRequestLimits", () => {
  const loose: RequestLimits = {
    maxMessages: 1e9,
    maxContentParts: 1e9,
    maxToolSchemaNodes: 1e9,
    maxChars: 1e9,
  };

  /** A random JSON value `levels` deep at most, with awkward strings (escapes, quotes, brackets). */
  function randomValue(random: () => number, levels: number): unknown {
    const pick = random();
    if (levels === 0 || pick < 0.3) {
      const strings = ['a"b', "c\\", "[{", '\\"}', "é\u2028", ""];
      return pick < 0.1 ? strings[Math.floor(random() * strings.length)] : pick < 0.2 ? -1.5e3 : null;
    }
    const size = Math.floor(random() * 4);
    if (pick < 0.65) return Array.from({ length: size }, () => randomValue(random, levels - 1));
    return Object.fromEntries(
      Array.from({ length: size }, (_, i) => [`k${i}"\\`, randomValue(random, levels - 1)]),
    );
  }

  it("should agree with findTooDeep on 300 random bodies, pretty-printed or not", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let n = 0; n < 300; n++) {
      const value = { messages: randomValue(random, 7) };
      for (const maxDepth of [3, 5, 8]) {
        const expected = findTooDeep(value, maxDepth);
        for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
          let thrown: unknown;
          try {
            scanRequestLimits(text, "chat-completions", loose, maxDepth);
          } catch (error) {
            thrown = error;
          }
          if (expected === undefined) expect(thrown).toBeUndefined();
          else expect((thrown as Error).message).toContain(`deeper than ${maxDepth} levels`);
        }
      }
    }
  });

  it("should leave text that is not JSON to JSON.parse (no verdict)", () => {
    for (const text of ['{"messages": [1, 2', '{"a" "b"}', "]]]", '{"x": "unterminated', "", "nul"]) {
      expect(() => scanRequestLimits(text, "chat-completions", DEFAULT_REQUEST_LIMITS, 2)).not.toThrow();
    }
  });

  it("should give the same verdicts in slices, yielding between them (large bodies)", async () => {
    const messages = Array.from({ length: 100_000 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: `m ${i}`,
    }));
    const properties = Object.fromEntries(
      Array.from({ length: 50_000 }, (_, i) => [`f_${i}`, { type: "string", description: `"q\\" ${i}` }]),
    );
    const bodies = [
      JSON.stringify({ model: "m", messages }),
      JSON.stringify({
        messages: [{ role: "user", content: "hi" }],
        tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties } } }],
      }),
      JSON.stringify({ messages: [{ role: "user", content: "z".repeat(5 * 1024 * 1024) }] }),
      JSON.stringify({ messages: messages.slice(0, 9_000) }, null, 2),
    ];
    const outcomes: string[] = [];
    for (const text of bodies) {
      expect(text.length).toBeGreaterThan(SCAN_SLICE_CHARS * 4);
      let expected = "passed";
      try {
        scanRequestLimits(text, "chat-completions", DEFAULT_REQUEST_LIMITS, 128);
      } catch (error) {
        expected = (error as Error).message;
      }
      let ticks = 0;
      const timer = setInterval(() => ticks++, 0);
      const sliced = await scanRequestLimitsYielding(
        text,
        "chat-completions",
        DEFAULT_REQUEST_LIMITS,
        128,
      ).then(
        () => "passed",
        (error: Error) => error.message,
      );
      clearInterval(timer);
      expect(sliced).toBe(expected);
      outcomes.push(`${sliced.slice(0, 60)} ${ticks > 0 ? "yielded" : "blocked"}`);
    }
    expect(outcomes).toEqual([
      "messages[10000]: a request holds at most 10000 messages (--m yielded",
      "tools[0].function.parameters.properties.f_6664.type: the too yielded",
      "messages[0].content: the request's strings hold more than 41 yielded",
      "passed yielded",
    ]);
  });

  it("should give the whole text's verdict when the text arrives in pieces cut anywhere (strings, escapes, keys, numbers)", () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const tight: RequestLimits = {
      maxMessages: 6,
      maxContentParts: 5,
      maxToolSchemaNodes: 12,
      maxChars: 500,
    };
    const verdict = (scan: () => void) => {
      try {
        scan();
        return "passed";
      } catch (error) {
        return (error as Error).message;
      }
    };
    const verdicts = new Set<string>();
    for (let n = 0; n < 400; n++) {
      const body: Record<string, unknown> = {
        messages: Array.from({ length: Math.floor(random() * 9) }, () => ({
          role: "user",
          content:
            random() < 0.5
              ? `t\\"${"x".repeat(Math.floor(random() * 120))}\\`
              : [
                  { type: "text", text: 'a"\\' },
                  { type: "image_url", image_url: { url: "y".repeat(40) } },
                ],
        })),
        [`k"\\${n}`]: random() < 0.2 ? [[[[[[[1]]]]]]] : random() < 0.5 ? -12.5e3 : [true, null, 1234567],
        tools: Array.from({ length: Math.floor(random() * 3) }, () => ({
          type: "function",
          function: { name: "f", parameters: { type: "object", properties: { a: { type: "string" } } } },
        })),
      };
      for (const text of [JSON.stringify(body), JSON.stringify(body, null, 1)]) {
        const expected = verdict(() => scanRequestLimits(text, "chat-completions", tight, 7));
        verdicts.add(expected);
        for (let cuts = 0; cuts < 4; cuts++) {
          const scan = new RequestLimitScan("chat-completions", tight, 7);
          const actual = verdict(() => {
            let at = 0;
            while (at < text.length) {
              const size = random() < 0.3 ? 1 : 1 + Math.floor(random() * 12);
              scan.push(text.slice(at, at + size));
              at += size;
            }
          });
          expect(actual, text).toBe(expected);
        }
      }
    }
    // Every kind of verdict occurs, so that the comparison covers each limit.
    expect([...verdicts].map((v) => v.replace(/^.*?: (?=[a-z])/, "").slice(0, 18))).toEqual(
      expect.arrayContaining([
        "a request holds at",
        "passed",
        "the request's stri",
        "the tool definitio",
        "nests arrays/objec",
      ]),
    );
  });
});
