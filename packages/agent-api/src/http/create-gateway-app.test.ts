import { describe, expect, it } from "vitest";
import { SessionRegistry } from "../session/session-registry";
import { createGatewayApp } from "./create-gateway-app";

describe("createGatewayApp with a control token", () => {
  it("should refuse the control token as a session credential with 401 in each protocol's format", async () => {
    const calls: string[] = [];
    const app = createGatewayApp({
      registry: new SessionRegistry(),
      generate: async ({ sessionId }) => {
        calls.push(sessionId);
        throw new Error("must not generate");
      },
      heartbeatMs: 0,
      controlToken: "ctl-secret",
    });
    const headers = { "content-type": "application/json", authorization: "Bearer ctl-secret" };
    const chat = await app.request("http://gateway.test/agentic_api/v1/chat/completions", {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(chat.status).toBe(401);
    expect(await chat.json()).toEqual({
      error: {
        message: "the control token is not a session credential",
        type: "authentication_error",
        param: null,
        code: "authentication_error",
      },
    });
    const messages = await app.request("http://gateway.test/agentic_api/v1/messages", {
      method: "POST",
      headers: { ...headers, "x-api-key": "ctl-secret" },
      body: JSON.stringify({ model: "m", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(messages.status).toBe(401);
    expect((await messages.json()).error).toMatchObject({ type: "authentication_error" });
    // Another unknown credential is still 404 session_discarded.
    const other = await app.request("http://gateway.test/agentic_api/v1/chat/completions", {
      method: "POST",
      headers: { ...headers, authorization: "Bearer ctl-secretx" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(other.status).toBe(404);
    expect(calls).toEqual([]);
  });
});
