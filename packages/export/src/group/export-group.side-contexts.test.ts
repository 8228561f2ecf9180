import type { AssistantMessage, ChatMessage } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import { createCharRenderer } from "@relax/forest/testing";
import { describe, expect, it } from "vitest";
import { assertExportConfig } from "../config/validate-export-config";
import { buildDebugDump } from "../debug/build-debug-dump";
import { trainingRowSchema } from "../rows/training-row";
import { exportGroup } from "./export-group";
import type { SessionExportInput } from "./group-export-outcome";

const renderer = createCharRenderer();
const sys: ChatMessage = { role: "system", content: "S" };
const say = (content: string): AssistantMessage => ({ role: "assistant", content });
const user = (content: string): ChatMessage => ({ role: "user", content });

function commit(
  forest: SessionForest,
  messages: ChatMessage[],
  reply: AssistantMessage,
  metadata: Record<string, unknown> = {},
) {
  const plan = forest.beginTurn({ messages, tools: [], chatTemplateKwargs: {} });
  const outputIds = renderer.renderResponse(reply);
  return forest.commitResponse(plan, {
    outputIds,
    logprobs: outputIds.map(() => -0.25),
    finishReason: "stop",
    message: reply,
    metadata,
  });
}

/**
 * A session with a two-turn main loop and, when asked, side forests: one compaction request (after
 * main turn 1) and two sub-agent trajectories (the first of two turns), each linked to its parent turn.
 */
function session(
  id: string,
  reward: number | null,
  side: { compaction?: boolean; subagents?: boolean } = {},
) {
  const forest = new SessionForest({ sessionId: id, renderer });
  const task = user(`task ${id}`);
  const t0 = commit(forest, [sys, task], say("a"));
  const t1 = commit(forest, [sys, task, say("a"), user("r")], say("b"));
  const sideContexts: NonNullable<SessionExportInput["sideContexts"]> = [];
  if (side.compaction) {
    const compaction = new SessionForest({
      sessionId: id,
      renderer,
      metadata: { requestClass: "compaction" },
    });
    commit(compaction, [sys, task, say("a"), user("Summarize.")], say("sum"), {
      requestClass: "compaction",
      parentStateHash: t0.node.stateHash,
    });
    sideContexts.push({ requestClass: "compaction", forest: compaction });
  }
  if (side.subagents) {
    const sub = new SessionForest({ sessionId: id, renderer, metadata: { requestClass: "subagent" } });
    const link = { requestClass: "subagent", parentStateHash: t1.node.stateHash };
    commit(sub, [user("find x")], say("x?"), link);
    commit(sub, [user("find x"), say("x?"), user("x=1")], say("1"), link);
    commit(sub, [user("find y")], say("2"), link);
    sideContexts.push({ requestClass: "subagent", forest: sub });
  }
  const input: SessionExportInput = {
    sessionId: id,
    forest,
    output: reward === null ? { kind: "implicit" } : { kind: "implicit", reward },
    sideContexts,
  };
  return { input, turns: [t0.node.stateHash, t1.node.stateHash] };
}

const config = (n: number) => assertExportConfig({ nSamplesPerPrompt: n, agentWritesReward: true });

describe("side contexts (trained request classes)", () => {
  it("should export a compaction context after its session's row with the main reward and advantage, tokens exact", async () => {
    const s0 = session("s0", 1, { compaction: true });
    const s1 = session("s1", 0);
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [s0.input, s1.input] },
      config: config(2),
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    const a = 0.5 / (Math.sqrt(0.5) + 1e-6);
    expect(
      outcome.rows.map((row) => [
        row.session_id,
        row.context_name,
        row.request_class,
        row.reward,
        row.advantage,
      ]),
    ).toEqual([
      ["s0", null, undefined, 1, a],
      ["s0", "compaction:0", "compaction", 1, a],
      ["s1", null, undefined, 0, -a],
    ]);
    const side = outcome.rows[1]!;
    expect(renderer.decode(side.tokens)).toBe(
      "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\ntask s0<|im_end|>\n<|im_start|>assistant\na<|im_end|>\n" +
        "<|im_start|>user\nSummarize.<|im_end|>\n<|im_start|>assistant\nsum<|im_end|>",
    );
    // One generated turn: "sum<|im_end|>" = 4 tokens, all trained, advantage on each.
    expect(side.prompt_length).toBe(side.tokens.length - 4);
    expect(side.loss_mask).toEqual([1, 1, 1, 1]);
    expect(side.advantages).toEqual([a, a, a, a]);
    expect(side.rollout_log_probs).toEqual([-0.25, -0.25, -0.25, -0.25]);
    expect(side.rollout_id).toBe("s0");
    expect(side.parent_state_hash).toBe(s0.turns[0]);
    expect(side.sample_index).toBe(0);
    for (const row of outcome.rows) expect(trainingRowSchema.safeParse(row).success).toBe(true);

    // The debug dump marks the side forest's leaf as exported under its side-context name.
    const compaction = s0.input.sideContexts![0]!.forest as SessionForest;
    const dump = buildDebugDump({
      rolloutStep: 0,
      outcomes: [outcome],
      decode: (ids) => renderer.decode(ids),
      sessions: new Map([
        [
          0,
          [
            {
              sessionId: "s0",
              forest: s0.input.forest as SessionForest,
              sideForests: new Map([["compaction", compaction]]),
            },
          ],
        ],
      ]),
    });
    const sideDump = dump.groups[0]!.sessions![0]!.side_forests!.compaction!;
    expect(sideDump.nodes.map((node) => node.exported_as)).toEqual([[], ["compaction:0"]]);
  });

  it("should export each sub-agent trajectory as its own context linked to the parent turn", async () => {
    const s0 = session("s0", 1, { subagents: true });
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [s0.input, session("s1", 1).input] },
      config: config(2),
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    const sub = outcome.rows.filter((row) => row.request_class === "subagent");
    expect(sub.map((row) => [row.context_name, row.num_turns, row.parent_state_hash, row.advantage])).toEqual(
      [
        ["subagent:0", 2, s0.turns[1], 0],
        ["subagent:1", 1, s0.turns[1], 0],
      ],
    );
    expect(renderer.decode(sub[0]!.tokens.slice(sub[0]!.prompt_length))).toBe(
      "x?<|im_end|>\n<|im_start|>user\nx=1<|im_end|>\n<|im_start|>assistant\n1<|im_end|>",
    );
    // "x?<|im_end|>" (3), the observation "\n<|im_start|>user\nx=1<|im_end|>\n<|im_start|>assistant\n" (23), "1<|im_end|>" (2).
    expect(sub[0]!.loss_mask.join("")).toBe(`111${"0".repeat(23)}11`);
  });

  it("should credit side contexts with the side-credit function, passing the main context", async () => {
    const s0 = session("s0", 1, { compaction: true, subagents: true });
    const seen: unknown[] = [];
    const outcome = await exportGroup({
      group: { groupIndex: 3, sessions: [s0.input, session("s1", 0).input] },
      config: config(2),
      functions: {
        sideCredit: (input) => {
          seen.push([
            input.name,
            input.requestClass,
            input.main.reward,
            input.numTurns,
            input.generatedTokens,
          ]);
          return input.requestClass === "compaction" ? 0.25 : { advantage: -1, reward: null };
        },
      },
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    expect(seen).toEqual([
      ["compaction:0", "compaction", 1, 1, 4],
      ["subagent:0", "subagent", 1, 2, 5],
      ["subagent:1", "subagent", 1, 1, 2],
    ]);
    expect(outcome.rows.map((row) => [row.context_name, row.reward, row.advantage]).slice(1, 4)).toEqual([
      ["compaction:0", 1, 0.25],
      ["subagent:0", null, -1],
      ["subagent:1", null, -1],
    ]);
  });

  it("should drop the Group when the side-credit function returns a malformed value, naming the field", async () => {
    const outcome = await exportGroup({
      group: {
        groupIndex: 0,
        sessions: [session("s0", 1, { compaction: true }).input, session("s1", 0).input],
      },
      config: config(2),
      functions: { sideCredit: () => ({ advantage: Number.NaN }) },
    });
    expect(outcome.kind).toBe("dropped");
    if (outcome.kind !== "dropped") return;
    expect(outcome.reason).toBe("side_credit_function_error");
    expect(outcome.message).toContain("compaction:0 of session s0: TypeError: result.advantage:");
  });

  it("should not export side contexts in eval", async () => {
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [session("s0", 1, { compaction: true }).input] },
      config: assertExportConfig({ nSamplesPerPrompt: 2, agentWritesReward: true }),
      mode: "eval",
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    expect(outcome.rows.map((row) => row.request_class)).toEqual([undefined]);
  });
});

describe("per-turn rewards", () => {
  const withTurnRewards = (value: unknown, reward: unknown = 1): SessionExportInput => {
    const { input } = session("s0", 1);
    return { ...input, output: { kind: "implicit", reward: reward as number, turn_rewards: value } };
  };

  it("should align an array and an index-keyed object to the row's turns with each turn's last generated position", async () => {
    for (const [value, expected] of [
      [
        [0.5, 1],
        [0.5, 1],
      ],
      [{ 1: 0.75 }, [null, 0.75]],
    ] as const) {
      const outcome = await exportGroup({
        group: { groupIndex: 0, sessions: [withTurnRewards(value)] },
        config: config(1),
      });
      if (outcome.kind !== "exported") throw new Error(outcome.message);
      const row = outcome.rows[0]!;
      expect(row.turn_rewards).toEqual(expected);
      // Turn 0 generated "a<|im_end|>" (positions 0-1), then the 21-token observation
      // "\n<|im_start|>user\nr<|im_end|>\n<|im_start|>assistant\n", turn 1 "b<|im_end|>" (23-24).
      expect(row.turn_reward_positions).toEqual([1, 24]);
      expect(row.loss_mask[24]).toBe(1);
      expect(row.loss_mask).toHaveLength(25);
      expect(trainingRowSchema.safeParse(row).success).toBe(true);
    }
  });

  it("should take per-turn rewards from a reward function's object", async () => {
    const { input } = session("s0", null);
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [input] },
      config: assertExportConfig({ nSamplesPerPrompt: 1, customRm: "m#f", rewardKey: "score" }),
      functions: { reward: () => ({ score: 1, turn_rewards: [0, 1] }) },
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    expect(outcome.rows[0]!.turn_rewards).toEqual([0, 1]);
    expect(outcome.rows[0]!.reward_details).toEqual({});
  });

  it("should drop the Group with the field path when per-turn rewards do not fit", async () => {
    const cases: Array<[unknown, string]> = [
      [[1], "output.turn_rewards: has 1 entries, but the exported context has 2 response turn(s)"],
      [{ 2: 1 }, "output.turn_rewards.2: turn 2 does not exist: the exported context has 2 response turn(s)"],
      [[1, "x"], "output.turn_rewards[1]: "],
      [{ first: 1 }, "output.turn_rewards"],
      ["1,2", "output.turn_rewards: must be an array of numbers or nulls"],
    ];
    for (const [value, message] of cases) {
      const outcome = await exportGroup({
        group: { groupIndex: 0, sessions: [withTurnRewards(value)] },
        config: config(1),
      });
      if (outcome.kind !== "dropped") throw new Error(`exported ${JSON.stringify(value)}`);
      expect(outcome.reason).toBe("invalid_turn_rewards");
      expect(outcome.message).toContain(`session s0: ${message}`);
    }
  });
});
