import { SessionForest } from "@relax/forest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, type TestGateway } from "../testing/create-test-gateway";
import { GatewaySession } from "./gateway-session";

const URL_CHAT = "http://gateway.test/agentic_api/v1/chat/completions";

describe("GatewaySession lifecycle (in process)", () => {
  let gateway: TestGateway;
  let counter = 0;
  beforeAll(async () => {
    gateway = await createTestGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  const open = () => {
    const id = `lifecycle-${counter++}`;
    const session = new GatewaySession({
      id,
      groupId: "g",
      mode: "train",
      forest: new SessionForest({ sessionId: id, renderer: gateway.renderer, maxContextTokens: 4096 }),
    });
    gateway.registry.add(session);
    return session;
  };
  const chat = (sessionId: string, content = "Hi") =>
    gateway.fetch(
      new Request(URL_CHAT, {
        method: "POST",
        headers: { authorization: `Bearer ${sessionId}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content }] }),
      }),
    );

  it("should hold the first request at the barrier until the lease, then generate", async () => {
    const session = open();
    const first: number[] = [];
    session.onFirstRequest(() => first.push(session.requests));
    expect(session.state).toBe("prepare");
    const calls = gateway.standin.calls.length;
    const pending = chat(session.id);
    await new Promise<void>((resolve) => session.onFirstRequest(resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(first).toEqual([1]);
    expect(session.inflight).toBe(1);
    expect(session.generating).toBe(0);
    expect(gateway.standin.calls.slice(calls).filter((call) => call.path === "/generate")).toHaveLength(0);
    session.lease();
    expect(session.state).toBe("runtime");
    const response = await pending;
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]!.message.content).toBe("Answer 1.");
    expect(session.inflight).toBe(0);
    // A listener registered after the first request runs at once.
    session.onFirstRequest(() => first.push(-1));
    expect(first).toEqual([1, -1]);
  });

  it("should abort a held request when the session closes, and answer 404 after", async () => {
    const session = open();
    const pending = chat(session.id);
    await new Promise<void>((resolve) => session.onFirstRequest(resolve));
    gateway.registry.remove(session.id, "group dropped");
    expect(session.state).toBe("closed");
    const held = await pending;
    expect(held.status).toBe(404);
    const late = await chat(session.id);
    expect(late.status).toBe(404);
    expect(await late.json()).toMatchObject({ error: { code: "session_discarded" } });
    expect(() => session.beginRequest(new AbortController().signal)).toThrow();
  });

  it("should reject waitForLease when its signal aborts, and resolve at once in Runtime", async () => {
    const session = open();
    const controller = new AbortController();
    const waiting = session.waitForLease(controller.signal);
    controller.abort(new Error("client went away"));
    await expect(waiting).rejects.toThrow("client went away");
    session.lease();
    await expect(session.waitForLease(new AbortController().signal)).resolves.toBeUndefined();
    gateway.registry.remove(session.id);
  });
});
