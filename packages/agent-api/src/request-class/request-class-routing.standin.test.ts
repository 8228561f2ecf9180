import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, type TestGateway } from "../testing/create-test-gateway";

const tools = [
  { type: "function", function: { name: "write", parameters: { type: "object", properties: {} } } },
];

describe("request classes route requests by policy (stand-in engine, a script — not a model)", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await createTestGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  const open = (id: string) => gateway.openSession(id);
  const chat = (id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    gateway.fetch(
      new Request("http://gateway.test/agentic_api/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${id}`, "content-type": "application/json", ...headers },
        body: JSON.stringify({ model: "m", ...body }),
      }),
    );
  const generates = () => gateway.standin.calls.filter((call) => call.path === "/generate").length;

  it("should record a title request in its own forest, pass a probe through, and train only the main loop", async () => {
    const session = open("classes-1");
    const opencode = { "user-agent": "opencode/1.18.33", "x-session-affinity": "ses_1" };
    const before = generates();
    const title = await chat(
      "classes-1",
      {
        messages: [
          { role: "system", content: "You are a title generator. You output ONLY a thread title." },
          { role: "user", content: "Generate a title for this conversation:\nmake hello.txt" },
        ],
      },
      opencode,
    );
    expect(title.status).toBe(200);
    const main = await chat(
      "classes-1",
      {
        messages: [
          { role: "system", content: "You are opencode." },
          { role: "user", content: "make hello.txt" },
        ],
        tools,
      },
      opencode,
    );
    expect(main.status).toBe(200);
    const probe = await gateway.fetch(
      new Request("http://gateway.test/agentic_api/v1/messages?beta=true", {
        method: "POST",
        headers: {
          "x-api-key": "classes-1",
          "x-claude-code-session-id": "c1",
          "anthropic-version": "2023-06-01",
          "content-type": "application/json",
        },
        body: JSON.stringify({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "quota" }] }),
      }),
    );
    expect(probe.status).toBe(200);
    expect(generates() - before).toBe(3);

    expect(session.forest.turns()).toHaveLength(1);
    expect(session.forest.implicitExportLeaf().kind).toBe("response");
    expect([...session.sideForests.keys()]).toEqual(["title"]);
    const titleForest = session.sideForests.get("title")!;
    expect(titleForest.turns()).toHaveLength(1);
    expect(titleForest.metadata).toEqual({ requestClass: "title", policy: "record" });
    expect(titleForest.rolloutId).toBe(session.forest.rolloutId);
    expect(Object.fromEntries(session.requestClasses)).toEqual({ title: 1, main: 1, probe: 1 });
    const [leaf] = session.forest.exportableLeaves();
    expect(leaf?.kind === "response" && leaf.metadata?.requestClass).toBe("main");
  });

  it("should start a compaction segment when the main loop restarts after a compaction request", async () => {
    const session = open("classes-2");
    const codex = { originator: "codex_exec" };
    const task = [
      { role: "system", content: "You are Codex." },
      { role: "user", content: "make hello.txt" },
    ];
    const first = await chat("classes-2", { messages: task, tools }, codex);
    const answer = ((await first.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!
      .message.content;
    const compaction = await chat(
      "classes-2",
      {
        messages: [
          ...task,
          { role: "assistant", content: answer },
          { role: "user", content: "You are performing a CONTEXT CHECKPOINT COMPACTION. Summarise." },
        ],
      },
      codex,
    );
    expect(compaction.status).toBe(200);
    const restart = await chat(
      "classes-2",
      {
        messages: [
          { role: "system", content: "You are Codex." },
          {
            role: "user",
            content: "Another language model started to solve this problem and produced a summary: …",
          },
        ],
        tools,
      },
      codex,
    );
    expect(restart.status).toBe(200);
    expect(session.sideForests.get("compaction")!.turns()).toHaveLength(1);
    expect(session.forest.turns().map((turn) => [turn.transition, turn.segment])).toEqual([
      ["append", undefined],
      ["reset", "compaction"],
    ]);
    expect(session.compactedSinceTrain).toBe(false);
    const segments = session.forest.implicitExportSegments();
    expect(segments).toHaveLength(2);
    expect(session.forest.buildSample(segments[1]!.stateHash).resetFrom).toBe(segments[0]!.stateHash);
  });
});
