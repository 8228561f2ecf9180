import { afterEach, describe, expect, it } from "vitest";
import {
  anthropicMessageSse,
  chatCompletion,
  type ScriptedServer,
  startScriptedServer,
} from "../src/testing/index";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("startScriptedServer", () => {
  it("should answer scripted replies in order and record the requests", async () => {
    server = await startScriptedServer({
      replies: [
        { json: chatCompletion({ content: "hi" }) },
        { sse: anthropicMessageSse({ content: [{ type: "text", text: "yo" }] }) },
      ],
    });
    const first = await fetch(`${server.origin}/agentic_api/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer s1", "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [] }),
    });
    expect((await first.json()).choices[0].message).toEqual({ role: "assistant", content: "hi" });
    const second = await fetch(`${server.origin}/agentic_api/v1/messages`, { method: "POST", body: "{}" });
    expect(second.headers.get("content-type")).toBe("text/event-stream");
    const text = await second.text();
    expect(
      text
        .split("\n\n")
        .filter(Boolean)
        .map((frame) => frame.split("\n")[0]),
    ).toEqual([
      "event: message_start",
      "event: content_block_start",
      "event: content_block_delta",
      "event: content_block_stop",
      "event: message_delta",
      "event: message_stop",
    ]);
    const third = await fetch(`${server.origin}/x`, { method: "POST" });
    expect(third.status).toBe(500);
    expect(
      server.requests.map((request) => [request.method, request.path, request.headers.authorization]),
    ).toEqual([
      ["POST", "/agentic_api/chat/completions", "Bearer s1"],
      ["POST", "/agentic_api/v1/messages", undefined],
      ["POST", "/x", undefined],
    ]);
    expect(server.requests[0]!.body).toEqual({ model: "m", messages: [] });
  });
});
