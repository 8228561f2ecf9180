import { fileURLToPath } from "node:url";
import { createGatewayApp, GatewaySession, listenGateway, SessionRegistry } from "@relax/agent-api";
import { createTestGateway } from "@relax/agent-api/testing";
import type { ChatRenderer } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../config/load-config";
import { planGateway } from "../plan/plan-rollout-components";

const REQUIRED = {
  promptData: fileURLToPath(import.meta.url),
  agentCommand: "unused",
  sglangUrl: ["http://127.0.0.1:1"],
};

let renderer: ChatRenderer;
beforeAll(async () => {
  const test = await createTestGateway();
  renderer = test.renderer;
  await test.close();
});

async function gatewayWith(overrides: Record<string, unknown>) {
  const registry = new SessionRegistry();
  for (const id of ["live", "other"]) {
    registry.add(
      new GatewaySession({
        id,
        groupId: "g",
        mode: "train",
        forest: new SessionForest({ sessionId: id, renderer }),
      }),
    );
  }
  const gateway = planGateway(resolveConfig({}, { ...REQUIRED, ...overrides }));
  const app = createGatewayApp({
    registry,
    generate: () => Promise.reject(new Error("not reached")),
    heartbeatMs: 0,
    maxRequestBytes: gateway.maxRequestBytes,
    maxJsonDepth: gateway.maxJsonDepth,
    requestLimits: gateway.requestLimits,
    refusalBackoffMaxMs: gateway.refusalBackoffMaxMs,
  });
  return { gateway, server: await listenGateway({ app, host: "127.0.0.1", port: 0 }) };
}

const post = (port: number, path: string, body: string, credential = "live") =>
  fetch(`http://127.0.0.1:${port}/agentic_api${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${credential}`, "content-type": "application/json" },
    body,
  });

/** The round trip of each of `count` over-limit bodies of `credential`, sent one after another, in ms. */
async function refusalTimes(port: number, count: number, credential = "live"): Promise<number[]> {
  const body = JSON.stringify({ messages: [1, 2, 3].map(() => ({ role: "user", content: "x" })) });
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await post(port, "/v1/chat/completions", body, credential);
    expect(response.status).toBe(400);
    await response.arrayBuffer();
    times.push(performance.now() - started);
  }
  return times;
}

describe("request limits from the rollout config, over real HTTP", () => {
  it("should plan the documented defaults", async () => {
    const { gateway, server } = await gatewayWith({});
    await using _server = server;
    expect(gateway.maxJsonDepth).toBe(128);
    expect(gateway.requestLimits).toEqual({
      maxMessages: 10_000,
      maxContentParts: 20_000,
      maxToolSchemaNodes: 20_000,
      maxChars: 4_194_304,
    });
  });

  it("should refuse 10^5 messages and a 50k-property schema at the defaults", async () => {
    const { server } = await gatewayWith({});
    await using _server = server;
    const messages = Array.from({ length: 100_000 }, (_, i) => ({ role: "user", content: `m${i}` }));
    const many = await post(server.port, "/v1/chat/completions", JSON.stringify({ messages }));
    expect(many.status).toBe(400);
    expect(await many.json()).toEqual({
      error: {
        message: "messages[10000]: a request holds at most 10000 messages (--max-request-messages raises it)",
        type: "invalid_request_error",
        param: "messages",
        code: "request_limit_exceeded",
      },
    });
    const properties = Object.fromEntries(
      Array.from({ length: 50_000 }, (_, i) => [`p${i}`, { type: "string" }]),
    );
    const wide = await post(
      server.port,
      "/v1/messages",
      JSON.stringify({
        max_tokens: 8,
        messages: [{ role: "user", content: "hi" }],
        tools: [{ name: "f", input_schema: { type: "object", properties } }],
      }),
    );
    expect(wide.status).toBe(400);
    expect(await wide.json()).toEqual({
      type: "error",
      error: {
        type: "invalid_request_error",
        message:
          "tools[0].input_schema.properties.p9997.type: the tool definitions hold at most 20000 JSON values in all (--max-tool-schema-nodes raises it)",
      },
    });
  });

  it("should take the limits from the flags' config keys", async () => {
    const { server } = await gatewayWith({ maxRequestMessages: 2, maxRequestChars: 20 });
    await using _server = server;
    const messages = [1, 2, 3].map((i) => ({ role: "user", content: `m${i}` }));
    const three = await post(server.port, "/v1/responses", JSON.stringify({ input: messages }));
    expect(three.status).toBe(400);
    expect(await three.json()).toEqual({
      error: {
        message: "input[2]: a request holds at most 2 input items (--max-request-messages raises it)",
        type: "invalid_request_error",
        param: "input",
        code: "request_limit_exceeded",
      },
    });
    const long = await post(server.port, "/v1/responses", JSON.stringify({ input: "twenty-one characters" }));
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: { message: string } }).error.message).toBe(
      "input: the request's strings hold more than 20 characters in all (--max-request-chars raises it)",
    );
  });

  it("should put only the session that keeps sending refused bodies in backoff (--refusal-backoff-max-ms)", async () => {
    const { gateway, server } = await gatewayWith({ maxRequestMessages: 2 });
    await using _server = server;
    expect(gateway.refusalBackoffMaxMs).toBe(500);
    // Waits before each body: 0, then 50, 100, 200, 400 and 500 ms after the previous refusal (counted
    // from the refusal, so a round trip sees its wait less the time its answer took to arrive).
    const times = await refusalTimes(server.port, 6);
    expect(times.reduce((sum, ms) => sum + ms, 0)).toBeGreaterThanOrEqual(1_000);
    expect(times[5]!).toBeGreaterThanOrEqual(400);
    // Another session's first body is read at once.
    const other = await refusalTimes(server.port, 1, "other");
    expect(other[0]!).toBeLessThan(times[5]!);
  });

  it("should not back off with --refusal-backoff-max-ms 0", async () => {
    const { gateway, server } = await gatewayWith({ maxRequestMessages: 2, refusalBackoffMaxMs: 0 });
    await using _server = server;
    expect(gateway.refusalBackoffMaxMs).toBe(0);
    // With the backoff, 6 refusals in a row would wait 50 + 100 + 200 + 400 + 500 ms in all.
    const times = await refusalTimes(server.port, 6);
    expect(times.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(1_250);
  });
});
