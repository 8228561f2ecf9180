import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, type TestGateway } from "../testing/create-test-gateway";

// The stand-in engine (a scripted policy, not a model) answers each call with a new number, so a request
// generated twice would get two different answers.
let generated = 0;

describe("identical requests are answered once (client retries; stand-in engine, not a model)", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await createTestGateway({
      policy: () => `Call ${++generated}.`,
      tokenLatencyMs: 5,
    });
  });
  afterAll(async () => {
    await gateway.close();
  });

  const openSession = (id: string) => gateway.openSession(id);
  const send = (id: string, body: Record<string, unknown>) =>
    gateway.fetch(
      new Request("http://gateway.test/agentic_api/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${id}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m", ...body }),
      }),
    );
  const generateCalls = (from: number) =>
    gateway.standin.calls.slice(from).filter((call) => call.path === "/generate").length;
  const contentOf = async (response: Response) =>
    ((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message
      .content;

  it("should answer a sequential repeat from the committed response, keep one context and export it", async () => {
    const session = openSession("replay-seq");
    const from = gateway.standin.calls.length;
    const messages = [{ role: "user", content: "What is 2+2?" }];
    const first = await contentOf(await send("replay-seq", { messages }));
    const again = await contentOf(await send("replay-seq", { messages }));
    expect(again).toBe(first);
    expect(generateCalls(from)).toBe(1);
    const next = await contentOf(
      await send("replay-seq", {
        messages: [...messages, { role: "assistant", content: first }, { role: "user", content: "And 3+3?" }],
      }),
    );
    expect(generateCalls(from)).toBe(2);
    expect(
      session.forest.turns().map((turn) => [turn.transition, turn.linear, turn.status, turn.replayOf]),
    ).toEqual([
      ["append", true, "committed", undefined],
      ["append", true, "committed", 0],
      ["append", true, "committed", undefined],
    ]);
    const leaf = session.forest.implicitExportLeaf();
    expect(gateway.tokenizer.decode(session.forest.buildSample(leaf.stateHash).tokens)).toContain(
      `${first}<|im_end|>\n<|im_start|>user\nAnd 3+3?<|im_end|>\n<|im_start|>assistant\n${next}`,
    );
  });

  it("should let a concurrent repeat wait for the first answer instead of generating again", async () => {
    const session = openSession("replay-concurrent");
    const from = gateway.standin.calls.length;
    const messages = [{ role: "user", content: "Name a colour." }];
    const [a, b] = await Promise.all([
      send("replay-concurrent", { messages }).then(contentOf),
      send("replay-concurrent", { messages }).then(contentOf),
    ]);
    expect(b).toBe(a);
    expect(generateCalls(from)).toBe(1);
    expect(session.forest.turns().map((turn) => turn.replayOf)).toEqual([undefined, 0]);
    expect(session.forest.implicitExportLeaf().kind).toBe("response");
  });

  it("should let one of several waiting repeats generate when the first generation failed, the others replay it", async () => {
    let failed = false;
    const local = await createTestGateway({
      policy: async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (!failed) {
          failed = true;
          throw new Error("engine fault (test)");
        }
        return `Call ${++generated}.`;
      },
    });
    try {
      const session = local.openSession("replay-after-failure");
      const post = () =>
        local.fetch(
          new Request("http://gateway.test/agentic_api/v1/chat/completions", {
            method: "POST",
            headers: { authorization: "Bearer replay-after-failure", "content-type": "application/json" },
            body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "Once more?" }] }),
          }),
        );
      const responses = await Promise.all([post(), post(), post()]);
      expect(responses.map((response) => response.status)).toEqual([502, 200, 200]);
      const [, b, c] = await Promise.all(responses.map((response) => response.json()));
      expect(c.choices[0].message.content).toBe(b.choices[0].message.content);
      expect(local.standin.calls.filter((call) => call.path === "/generate")).toHaveLength(2);
      expect(session.forest.turns().map((turn) => [turn.transition, turn.status, turn.replayOf])).toEqual([
        ["append", "failed", undefined],
        ["append", "committed", undefined],
        ["append", "committed", 1],
      ]);
      expect(session.forest.implicitExportLeaf().kind).toBe("response");
    } finally {
      await local.close();
    }
  });

  it("should generate again for another seed or max_tokens: a new sample of the same state is a branch", async () => {
    const session = openSession("replay-seed");
    const from = gateway.standin.calls.length;
    const messages = [{ role: "user", content: "Pick a number." }];
    const first = await contentOf(await send("replay-seed", { messages, seed: 1 }));
    const second = await contentOf(await send("replay-seed", { messages, seed: 2 }));
    expect(second).not.toBe(first);
    expect(generateCalls(from)).toBe(2);
    expect(session.forest.turns().map((turn) => turn.transition)).toEqual(["append", "branch"]);
  });

  it("should answer the openai SDK's own retry after a connection reset that followed the answer", async () => {
    const session = openSession("replay-sdk");
    const from = gateway.standin.calls.length;
    let attempts = 0;
    const client = new OpenAI({
      apiKey: "replay-sdk",
      baseURL: "http://gateway.test/agentic_api/v1",
      maxRetries: 2,
      // The first answer is generated and committed, then the connection drops before the SDK reads it.
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        const response = await gateway.fetch(new Request(input, init));
        if (++attempts === 1) {
          await response.text();
          throw new TypeError("fetch failed: socket hang up");
        }
        return response;
      },
    });
    const completion = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "Hello?" }],
    });
    expect(attempts).toBe(2);
    expect(generateCalls(from)).toBe(1);
    const content = completion.choices[0]!.message.content;
    expect(content).toMatch(/^Call \d+\.$/);
    // The answer the SDK finally read is the one committed (and trained) at the first attempt.
    const leaf = session.forest.implicitExportLeaf();
    expect(gateway.tokenizer.decode(session.forest.buildSample(leaf.stateHash).tokens)).toBe(
      `<|im_start|>user\nHello?<|im_end|>\n<|im_start|>assistant\n${content}<|im_end|>`,
    );
    expect(session.forest.turns().map((turn) => [turn.transition, turn.replayOf])).toEqual([
      ["append", undefined],
      ["append", 0],
    ]);
  });
});
