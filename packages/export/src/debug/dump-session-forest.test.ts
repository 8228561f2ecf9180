import type { AssistantMessage, ChatMessage, ConversationState } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { createCharRenderer } from "@relax/forest/testing";
import { describe, expect, it } from "vitest";
import { assertExportConfig } from "../config/validate-export-config";
import { exportGroup } from "../group/export-group";
import { buildDebugDump } from "./build-debug-dump";
import { dumpSessionForest } from "./dump-session-forest";

const state = (messages: ChatMessage[]): ConversationState => ({
  messages,
  tools: [],
  chatTemplateKwargs: {},
});

describe("dumpSessionForest", () => {
  it("should list nodes, turns with tolerated edits, and which node was exported as which context", () => {
    const renderer = createCharRenderer();
    const forest = new SessionForest({ sessionId: "s", renderer });
    const reply: AssistantMessage = { role: "assistant", content: "ok", reasoning_content: "think" };
    const first = forest.beginTurn(state([{ role: "user", content: "hi" }]), { requestId: "r0" });
    const ids = renderer.renderResponse(reply);
    const committed = forest.commitResponse(first, {
      outputIds: ids,
      logprobs: ids.map(() => -0.5),
      finishReason: "stop",
      message: reply,
    });
    // The agent drops the reasoning when it sends the history back: a tolerated drift.
    const second = forest.beginTurn(
      state([
        { role: "user", content: "hi" },
        { role: "assistant", content: "ok" },
        { role: "user", content: "more" },
      ]),
    );
    forest.failTurn(second, { reason: "engine down" });

    const dump = dumpSessionForest(forest, new Map([[committed.node.stateHash, ["answer"]]]));
    expect(dump.root_state_hash).toBe(forest.rootStateHash);
    expect(dump.nodes.map((node) => [node.kind, node.turn_id, node.exported_as, node.failure])).toEqual([
      ["observation", 0, [], undefined],
      ["response", 0, ["answer"], undefined],
      ["observation", 1, [], "engine down"],
    ]);
    expect(dump.nodes[0]!.parent_state_hash).toBe(forest.rootStateHash);
    expect(dump.nodes[1]).toMatchObject({
      finish_reason: "stop",
      token_count: ids.length,
      messages: [reply],
    });
    expect(dump.nodes[2]!.messages).toEqual([{ role: "user", content: "more" }]);
    expect(
      dump.turns.map((turn) => [turn.turn_id, turn.transition, turn.status, turn.tolerated_edits]),
    ).toEqual([
      [0, "append", "committed", []],
      [1, "drift", "failed", ["reasoning_dropped@messages[1].reasoning_content"]],
    ]);
    expect(dump.turns[0]!.request_id).toBe("r0");
    expect(JSON.parse(JSON.stringify(dump))).toEqual(dump);
  });
});

describe("buildDebugDump with sessions", () => {
  it("should add each Group's sessions in slot order with their forests and exported-as names", async () => {
    const renderer = createCharRenderer();
    const forests = ["a", "b"].map((id) => {
      const forest = new SessionForest({ sessionId: id, renderer });
      const reply: AssistantMessage = { role: "assistant", content: `answer ${id}` };
      const ids = renderer.renderResponse(reply);
      forest.commitResponse(forest.beginTurn(state([{ role: "user", content: "task" }])), {
        outputIds: ids,
        logprobs: ids.map(() => -1),
        finishReason: "stop",
        message: reply,
      });
      return { sessionId: id, forest };
    });
    const outcome = await exportGroup({
      group: {
        groupIndex: 4,
        sessions: forests.map(({ sessionId, forest }, i) => ({
          sessionId,
          forest,
          output: { kind: "implicit" as const, metadata: {}, reward: i },
        })),
      },
      config: assertExportConfig({ nSamplesPerPrompt: 2, agentWritesReward: true }),
    });
    const dump = buildDebugDump({
      rolloutStep: 1,
      outcomes: [outcome],
      decode: (ids) => ids.join(","),
      sessions: new Map([[4, forests]]),
    });
    const sessions = dump.groups[0]!.sessions!;
    expect(sessions.map((session) => [session.session_id, session.slot])).toEqual([
      ["a", 0],
      ["b", 1],
    ]);
    expect(sessions.map((session) => session.forest.nodes.map((node) => node.exported_as))).toEqual([
      [[], [null]],
      [[], [null]],
    ]);
    expect(sessions[1]!.forest.nodes[1]!.state_hash).toBe(dump.groups[0]!.samples[1]!.state_hash);
    // Without `sessions` the dump is unchanged (the section is optional).
    const plain = buildDebugDump({ rolloutStep: 1, outcomes: [outcome], decode: (ids) => ids.join(",") });
    expect("sessions" in plain.groups[0]!).toBe(false);
  });
});
