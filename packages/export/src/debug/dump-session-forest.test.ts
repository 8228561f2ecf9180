import type { AssistantMessage, ChatMessage, ConversationState } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { createCharRenderer } from "@relax/forest/testing";
import { describe, expect, it } from "vitest";
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
