import { SessionForest } from "@relax/forest";
import { describe, expect, it } from "vitest";
import { GatewaySession } from "../session/gateway-session";
import { SessionRegistry } from "../session/session-registry";
import { createTestGateway } from "../testing/create-test-gateway";
import { createGatewayApp } from "./create-gateway-app";
import { listenGateway } from "./listen-gateway";

describe("gateway ingress over real HTTP", () => {
  it("should answer 413 to a 40 MiB body and 404 to an unknown session's body without reading them", async () => {
    const registry = new SessionRegistry();
    const { renderer, close } = await createTestGateway();
    await close();
    registry.add(
      new GatewaySession({
        id: "live",
        groupId: "g",
        mode: "train",
        forest: new SessionForest({ sessionId: "live", renderer }),
      }),
    );
    const app = createGatewayApp({
      registry,
      generate: () => Promise.reject(new Error("not reached")),
      heartbeatMs: 0,
      maxRequestBytes: 1024 * 1024,
    });
    await using server = await listenGateway({ app, host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${server.port}/agentic_api/v1/messages`;
    const body = `{"max_tokens":8,"messages":[{"role":"user","content":"${"x".repeat(40 * 1024 * 1024)}"}]}`;

    // An unknown session: 404 before the body is read.
    const unknown = await fetch(url, {
      method: "POST",
      headers: { "x-api-key": "nobody", "content-type": "application/json" },
      body,
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      type: "error",
      error: { type: "not_found_error", message: "session not found or already closed" },
    });

    // A live session, a body over --max-request-bytes: 413 in the Anthropic format.
    const tooLarge = await fetch(url, {
      method: "POST",
      headers: { "x-api-key": "live", "content-type": "application/json" },
      body,
    });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toEqual({
      type: "error",
      error: {
        type: "request_too_large",
        message: `request body of ${body.length} bytes exceeds the gateway limit of 1048576 bytes (--max-request-bytes)`,
      },
    });
  });
});
