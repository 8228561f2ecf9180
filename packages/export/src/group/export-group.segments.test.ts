import type { AssistantMessage, ChatMessage } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { createCharRenderer } from "@relax/forest/testing";
import { describe, expect, it } from "vitest";
import { assertExportConfig } from "../config/validate-export-config";
import { buildDebugDump } from "../debug/build-debug-dump";
import { planSessionExport } from "../plan/plan-session-export";
import { exportGroup } from "./export-group";
import type { SessionExportInput } from "./group-export-outcome";

const renderer = createCharRenderer();
const sys: ChatMessage = { role: "system", content: "S" };
const say = (content: string): AssistantMessage => ({ role: "assistant", content });

function commit(forest: SessionForest, messages: ChatMessage[], reply: AssistantMessage, segment = false) {
  const plan = forest.beginTurn(
    { messages, tools: [], chatTemplateKwargs: {} },
    segment ? { segment: "compaction" } : {},
  );
  const outputIds = renderer.renderResponse(reply);
  return forest.commitResponse(plan, {
    outputIds,
    logprobs: outputIds.map((_, i) => -0.5 - i / 100),
    finishReason: "stop",
    message: reply,
    metadata: { requestClass: "main" },
  });
}

/** A session whose agent compacted once: a turn, then a restart from a summary marked as a segment. */
function compactedSession(
  sessionId: string,
  reward?: number,
): { input: SessionExportInput; leaves: string[] } {
  const forest = new SessionForest({ sessionId, renderer });
  const task: ChatMessage = { role: "user", content: `task ${sessionId}` };
  const first = commit(forest, [sys, task], say("working"));
  const summary: ChatMessage = { role: "user", content: "Summary: working on it." };
  const second = commit(forest, [sys, summary], say("done"), true);
  return {
    input: {
      sessionId,
      forest,
      output: reward === undefined ? { kind: "implicit" } : { kind: "implicit", reward },
    },
    leaves: [first.node.stateHash, second.node.stateHash],
  };
}

function plainSession(sessionId: string, reward?: number): SessionExportInput {
  const forest = new SessionForest({ sessionId, renderer });
  commit(forest, [sys, { role: "user", content: `task ${sessionId}` }], say("done"));
  return {
    sessionId,
    forest,
    output: reward === undefined ? { kind: "implicit" } : { kind: "implicit", reward },
  };
}

describe("compaction segments in export", () => {
  it("should plan one implicit context per segment, in order, sharing the rollout id", () => {
    const { input, leaves } = compactedSession("s0", 1);
    const plan = planSessionExport({ sessionId: "s0", output: input.output, forest: input.forest });
    if (!plan.ok) throw new Error(plan.message);
    expect(plan.contexts.map((c) => [c.name, c.stateHash, c.segment])).toEqual([
      [null, leaves[0], { index: 0, count: 2, kind: "compaction" }],
      [null, leaves[1], { index: 1, count: 2, kind: "compaction" }],
    ]);
    expect(plan.contexts.map((c) => c.sample.rolloutId)).toEqual(["s0", "s0"]);
    expect(plan.contexts[1]!.sample.resetFrom).toBe(leaves[0]);
  });

  it("should export every segment with its session's reward and one GRPO advantage per session", async () => {
    const compacted = compactedSession("s0", 1);
    const outcome = await exportGroup({
      group: {
        groupIndex: 0,
        sessions: [compacted.input, plainSession("s1", 0), plainSession("s2", 0), plainSession("s3", 1)],
      },
      config: assertExportConfig({ nSamplesPerPrompt: 4, agentWritesReward: true }),
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    const a = 0.5 / (Math.sqrt(1 / 3) + 1e-6);
    expect(outcome.rows.map((row) => [row.session_id, row.state_hash, row.reward, row.advantage])).toEqual([
      ["s0", compacted.leaves[0], 1, a],
      ["s0", compacted.leaves[1], 1, a],
      ["s1", expect.any(String), 0, -a],
      ["s2", expect.any(String), 0, -a],
      ["s3", expect.any(String), 1, a],
    ]);
    expect(outcome.rows.slice(0, 2).map((row) => row.rollout_id)).toEqual(["s0", "s0"]);
    // Both segments say they are compaction segments; a session with one context says nothing.
    expect(outcome.rows.map((row) => row.segment_kind)).toEqual([
      "compaction",
      "compaction",
      undefined,
      undefined,
      undefined,
    ]);
    // Each segment trains only its own generated tokens: "working<|im_end|>" and "done<|im_end|>".
    expect(outcome.rows.slice(0, 2).map((row) => row.loss_mask.filter((bit) => bit === 1).length)).toEqual([
      8, 5,
    ]);
  });

  it("should give earlier segments the reward a reward function gave the last one (called once per session)", async () => {
    const compacted = compactedSession("s0");
    const seen: string[] = [];
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [compacted.input, plainSession("s1")] },
      config: assertExportConfig({ nSamplesPerPrompt: 2, customRm: "m#f" }),
      functions: {
        reward: (input) => {
          seen.push(`${input.sessionId}:${input.sample.stateHash.slice(0, 8)}`);
          return input.sessionId === "s0" ? 1 : 0;
        },
      },
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    expect(seen).toEqual([`s0:${compacted.leaves[1]!.slice(0, 8)}`, expect.stringMatching(/^s1:/)]);
    expect(outcome.rows.map((row) => row.reward)).toEqual([1, 1, 0]);
    // The earlier segment records where its copied reward came from, and from which segment.
    expect(outcome.contexts.map((context) => context.rewardSource)).toEqual([
      { kind: "reward_function", function: "m#f", copied_from: compacted.leaves[1] },
      { kind: "reward_function", function: "m#f" },
      { kind: "reward_function", function: "m#f" },
    ]);
  });
});

describe("debug dump of a compacted session with recorded side requests", () => {
  it("should dump the segment marker and the side forests by class, none of them exported", async () => {
    const compacted = compactedSession("s0", 1);
    const title = new SessionForest({ sessionId: "s0", renderer, metadata: { requestClass: "title" } });
    commit(
      title,
      [
        { role: "system", content: "Title it." },
        { role: "user", content: "task s0" },
      ],
      say("Task"),
    );
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [compacted.input, plainSession("s1", 0)] },
      config: assertExportConfig({ nSamplesPerPrompt: 2, agentWritesReward: true }),
    });
    const dump = buildDebugDump({
      rolloutStep: 3,
      outcomes: [outcome],
      decode: (ids) => renderer.decode(ids),
      sessions: new Map([
        [
          0,
          [
            {
              sessionId: "s0",
              forest: compacted.input.forest as SessionForest,
              sideForests: new Map([["title", title]]),
            },
            { sessionId: "s1", forest: plainSession("s1").forest as SessionForest },
          ],
        ],
      ]),
    });
    const [s0, s1] = dump.groups[0]!.sessions!;
    expect(s0!.forest.turns.map((turn) => turn.segment)).toEqual([undefined, "compaction"]);
    expect(Object.keys(s0!.side_forests!)).toEqual(["title"]);
    expect(s0!.side_forests!.title!.turns).toHaveLength(1);
    expect(s0!.side_forests!.title!.nodes.every((node) => node.exported_as.length === 0)).toBe(true);
    expect(
      s0!.forest.nodes.filter((node) => node.exported_as.length > 0).map((node) => node.state_hash),
    ).toEqual(compacted.leaves);
    expect(s1!.side_forests).toBeUndefined();
  });
});
