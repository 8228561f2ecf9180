import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { SessionForest } from "@relax/forest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, type TestGateway } from "../testing/create-test-gateway";
import { GatewaySession } from "./gateway-session";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Full GCs, with turns of the event loop between them (finished requests' closures unwind first). */
async function collect(): Promise<void> {
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
}

const sentence = "The quick brown fox jumps over the lazy dog while the agent reads a long document. ";

describe("a dropped session's memory (stand-in engine, not a model; encode pool as the runtime runs it)", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await createTestGateway({ offload: true });
  });
  afterAll(async () => {
    await gateway.close();
  });

  const send = async (id: string, messages: unknown[]) => {
    const response = await gateway.fetch(
      new Request("http://gateway.test/agentic_api/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${id}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages }),
      }),
    );
    expect(response.status).toBe(200);
    return ((await response.json()) as { choices: Array<{ message: unknown }> }).choices[0]!.message;
  };

  /**
   * Runs a session as bench/ingress.ts shapes it (a first message rendered in a worker, then turns with a
   * large observation delta and short ones) and returns only weak references to what it stored: the
   * session, its forest and every node (each owns its token storage).
   */
  async function runSession(id: string): Promise<{ refs: WeakRef<object>[]; nodeCount: number }> {
    const forest = new SessionForest({ sessionId: id, renderer: gateway.renderer, maxContextTokens: 65_536 });
    const session = new GatewaySession({ id, groupId: "g", mode: "train", forest });
    gateway.registry.add(session);
    session.lease();
    const messages: unknown[] = [{ role: "user", content: `${id}: ${sentence.repeat(400)}` }];
    for (let turn = 0; turn < 4; turn++) {
      messages.push(await send(id, messages));
      messages.push({ role: "user", content: `Result ${turn}: ${sentence.repeat(turn === 1 ? 300 : 2)}` });
    }
    // The nodes, which own their (packed) token storage: `node.tokens` of a packed node is a fresh copy.
    const nodes = forest.nodes();
    expect(nodes.filter((node) => node.tokens.length > 5_000).length).toBeGreaterThanOrEqual(2);
    return {
      refs: [session, forest, ...nodes].map((value) => new WeakRef(value)),
      nodeCount: nodes.length,
    };
  }

  it("should free the session, its forest and every node with its token storage once the registry drops it", async () => {
    const { refs, nodeCount } = await runSession("release-1");
    expect(nodeCount).toBe(9); // root, 4 observations and 4 responses
    await collect();
    // Control: while registered, everything is alive (the check can fail).
    expect(refs.filter((ref) => ref.deref() === undefined)).toHaveLength(0);
    gateway.registry.remove("release-1");
    await collect();
    expect(refs.map((ref) => ref.deref() === undefined)).toEqual(refs.map(() => true));
  });

  it("should keep nothing of earlier dropped sessions after many of them (no cache grows with sessions)", async () => {
    const all: WeakRef<object>[] = [];
    for (let i = 0; i < 6; i++) {
      all.push(...(await runSession(`release-many-${i}`)).refs);
      gateway.registry.remove(`release-many-${i}`);
    }
    await collect();
    expect(all.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
  });
});
