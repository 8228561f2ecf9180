import { describe, expect, it } from "vitest";
import { conversation, FakeForest, qwen3 } from "../../test/fake-forest";
import { assertExportConfig } from "../config/validate-export-config";
import type { AdvantageFunction, AdvantageOutputSlot } from "../credit/advantage-function";
import { GroupSizeError } from "../errors/group-size-error";
import type { RewardValue } from "../plan/session-output-like";
import type { RewardFunctionInput } from "../reward/reward-function";
import { exportGroup } from "./export-group";
import type { SessionExportInput } from "./group-export-outcome";

function implicitSession(
  sessionId: string,
  reward: RewardValue,
  answer = `answer ${sessionId}`,
): SessionExportInput {
  return {
    sessionId,
    forest: new FakeForest({
      sessionId,
      conversations: [{ messages: conversation(`task ${sessionId}`, answer) }],
    }),
    output: { kind: "implicit", metadata: { task_success: reward === 1 ? 1 : 0 }, reward },
  };
}

function multiSession(sessionId: string, outcome: number): SessionExportInput {
  const main = conversation(`task ${sessionId}`, `main ${sessionId}`);
  const helper = conversation(`sub ${sessionId}`, `helper ${sessionId}`);
  return {
    sessionId,
    forest: new FakeForest({ sessionId, conversations: [{ messages: main }, { messages: helper }] }),
    output: {
      kind: "records",
      records: [
        { name: "main", messages: main, metadata: { outcome }, reward: outcome },
        { name: "helper", messages: helper, metadata: { outcome } },
      ],
    },
  };
}

const grpo = assertExportConfig({ nSamplesPerPrompt: 4, agentWritesReward: true });
const withAdvantage = (advantage: AdvantageFunction) => ({
  config: assertExportConfig({
    nSamplesPerPrompt: 2,
    multiContext: true,
    useDynamicBatchSize: true,
    maxTokensPerGpu: 8192,
    customAdvantage: advantage,
  }),
  functions: { advantage },
});

describe("exportGroup with standard normalisation", () => {
  it("should export one row per session with GRPO advantages broadcast over the loss mask", async () => {
    const outcome = await exportGroup({
      group: {
        groupIndex: 5,
        sessions: [
          implicitSession("s0", 1),
          implicitSession("s1", 0),
          implicitSession("s2", 0),
          implicitSession("s3", 1),
        ],
      },
      config: grpo,
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    const a = 0.5 / (Math.sqrt(1 / 3) + 1e-6);
    expect(outcome.rows.map((row) => row.advantage)).toEqual([a, -a, -a, a]);
    // No prompt index given: the Group index stands in; sample_index is the session's slot.
    expect(outcome.rows.map((row) => [row.prompt_index, row.sample_index])).toEqual([
      [5, 0],
      [5, 1],
      [5, 2],
      [5, 3],
    ]);
    const row = outcome.rows[0]!;
    const { encode } = qwen3();
    const generated = encode("answer s0<|im_end|>");
    expect(row).toMatchObject({
      context_name: null,
      session_id: "s0",
      rollout_id: "s0:rollout",
      group_index: 5,
      reward: 1,
      reward_details: {},
      status: "completed",
      stop_reason: "stop",
      num_turns: 1,
      weight_versions: ["w1"],
      metadata: { task_success: 1 },
      response_length: generated.length,
      prompt_length: encode("<|im_start|>user\ntask s0<|im_end|>\n<|im_start|>assistant\n").length,
    });
    expect(row.loss_mask).toEqual(generated.map(() => 1));
    expect(row.advantages).toEqual(generated.map(() => a));
  });

  it("should give zero advantages, not NaN, when every reward is equal", async () => {
    const outcome = await exportGroup({
      group: {
        groupIndex: 0,
        sessions: ["a", "b", "c", "d"].map((id) => implicitSession(id, 0.1)),
      },
      config: grpo,
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    expect(outcome.rows.map((row) => row.advantage)).toEqual([0, 0, 0, 0]);
    expect(outcome.rows.every((row) => row.advantages.every((value) => value === 0))).toBe(true);
  });

  it("should use RLOO and raw rewards when configured", async () => {
    const sessions = () => [implicitSession("a", 4), implicitSession("b", 2)];
    const rloo = await exportGroup({
      group: { groupIndex: 0, sessions: sessions() },
      config: assertExportConfig({
        nSamplesPerPrompt: 2,
        agentWritesReward: true,
        advantageEstimator: "rloo",
      }),
    });
    expect(rloo.kind === "exported" && rloo.rows.map((row) => row.advantage)).toEqual([2, -2]);
    const raw = await exportGroup({
      group: { groupIndex: 0, sessions: sessions() },
      config: assertExportConfig({
        nSamplesPerPrompt: 2,
        agentWritesReward: true,
        rewardsNormalization: false,
      }),
    });
    expect(raw.kind === "exported" && raw.rows.map((row) => row.advantage)).toEqual([4, 2]);
  });

  it("should refuse a Group with the wrong fan-out instead of regrouping", async () => {
    await expect(
      exportGroup({ group: { groupIndex: 2, sessions: [implicitSession("a", 1)] }, config: grpo }),
    ).rejects.toThrow(GroupSizeError);
  });

  it("should resolve reward objects with rewardKey and keep helpers", async () => {
    const config = assertExportConfig({ nSamplesPerPrompt: 2, agentWritesReward: true, rewardKey: "score" });
    const outcome = await exportGroup({
      group: {
        groupIndex: 0,
        sessions: [
          implicitSession("a", { score: 1, format: 0.5 }),
          implicitSession("b", { score: 0, format: 1 }),
        ],
      },
      config,
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    expect(outcome.rows.map((row) => [row.reward, row.reward_details])).toEqual([
      [1, { format: 0.5 }],
      [0, { format: 1 }],
    ]);
  });

  it("should fill missing rewards with the per-sample reward function, given decoded text", async () => {
    const seen: RewardFunctionInput[] = [];
    const reward = async (input: RewardFunctionInput) => {
      seen.push(input);
      return input.responseText?.includes("42") ? 1 : 0;
    };
    const config = assertExportConfig({ nSamplesPerPrompt: 2, customRm: reward });
    const outcome = await exportGroup({
      group: {
        groupIndex: 1,
        sessions: [
          { ...implicitSession("a", null, "It is 42."), datasetSample: { answer: "42" } },
          implicitSession("b", 0.25, "It is 41."),
        ],
      },
      config,
      functions: { reward },
      decode: qwen3().decode,
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    expect(outcome.rows.map((row) => row.reward)).toEqual([1, 0.25]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      sessionId: "a",
      groupIndex: 1,
      slot: 0,
      contextName: null,
      exportedReward: null,
      datasetSample: { answer: "42" },
      promptText: "<|im_start|>user\ntask a<|im_end|>\n<|im_start|>assistant\n",
      responseText: "It is 42.<|im_end|>",
    });
  });

  it("should let a group reward function replace every reward", async () => {
    const groupReward = (inputs: RewardFunctionInput[]) =>
      inputs.map((input, i) => ({ score: i, seen: Number(input.exportedReward) }));
    const config = assertExportConfig({
      nSamplesPerPrompt: 2,
      customRm: groupReward,
      groupRm: true,
      rewardKey: "score",
    });
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [implicitSession("a", 1), implicitSession("b", 1)] },
      config,
      functions: { groupReward },
    });
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    expect(outcome.rows.map((row) => [row.reward, row.reward_details])).toEqual([
      [0, { seen: 1 }],
      [1, { seen: 1 }],
    ]);
  });
});

describe("exportGroup drop semantics", () => {
  it("should drop the whole Group when one record matches nothing", async () => {
    const bad = multiSession("b", 0);
    if (bad.output?.kind === "records")
      bad.output.records[1]!.messages = conversation("sub b", "edited helper");
    const advantage = () => [];
    const outcome = await exportGroup({
      group: { groupIndex: 7, sessions: [multiSession("a", 1), bad] },
      ...withAdvantage(advantage),
    });
    expect(outcome).toMatchObject({
      kind: "dropped",
      groupIndex: 7,
      reason: "unmatched_record",
      sessions: [{ sessionId: "b", reason: "unmatched_record" }],
    });
    if (outcome.kind !== "dropped") return;
    expect(outcome.message).toMatch(
      /^group 7 dropped \(unmatched_record\): session b: records\[1\] \("helper"\) matches no committed state/,
    );
    // Nothing of the healthy session is exported.
    expect("rows" in outcome).toBe(false);
  });

  it("should drop the Group on an ambiguous implicit export, listing every bad session", async () => {
    const branched = (id: string): SessionExportInput => ({
      sessionId: id,
      forest: new FakeForest({
        sessionId: id,
        conversations: [
          { messages: conversation("task", "try 1") },
          { messages: conversation("task", "try 2") },
        ],
      }),
      output: { kind: "implicit", reward: 1 },
    });
    const outcome = await exportGroup({
      group: {
        groupIndex: 0,
        sessions: [implicitSession("a", 1), branched("b"), implicitSession("c", 0), branched("d")],
      },
      config: grpo,
    });
    expect(outcome).toMatchObject({ kind: "dropped", reason: "ambiguous_implicit_export" });
    if (outcome.kind !== "dropped") return;
    expect(outcome.sessions.map((session) => session.sessionId)).toEqual(["b", "d"]);
    expect(outcome.message).toContain("(and 1 more non-finalizable session(s))");
  });

  it("should filter the Group when the advantage function returns null", async () => {
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [multiSession("a", 1), multiSession("b", 1)] },
      ...withAdvantage(() => null),
    });
    expect(outcome).toMatchObject({
      kind: "filtered",
      reason: "advantage_function_returned_null",
      message: "group 0 filtered: the custom advantage function returned null",
    });
  });

  it("should drop the Group when the advantage function throws", async () => {
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [multiSession("a", 1), multiSession("b", 0)] },
      ...withAdvantage(async () => {
        throw new Error("z-score of a constant");
      }),
    });
    expect(outcome).toMatchObject({
      kind: "dropped",
      reason: "advantage_function_error",
      message:
        "group 0 dropped (advantage_function_error): custom advantage function threw: Error: z-score of a constant",
    });
  });

  it("should drop the Group when the advantage function returns the wrong length", async () => {
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [multiSession("a", 1), multiSession("b", 0)] },
      ...withAdvantage(() => [{ main: 1, helper: 0.5 }]),
    });
    expect(outcome).toMatchObject({
      kind: "dropped",
      reason: "advantage_function_error",
      message:
        "group 0 dropped (advantage_function_error): custom advantage function returned result: has 1 entries, " +
        "expected 2 (one per session, in sampled Group order)",
    });
  });

  it("should drop the Group when a context is missing from the advantage mapping", async () => {
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [multiSession("a", 1), multiSession("b", 0)] },
      ...withAdvantage((): AdvantageOutputSlot[] => [{ main: 1, helper: 0.5 }, { main: 0 }]),
    });
    expect(outcome).toMatchObject({ kind: "dropped", reason: "advantage_function_error" });
    if (outcome.kind === "dropped") expect(outcome.message).toContain("result[1].helper: is missing");
  });

  it('should key an implicit context as "null" in the advantage input', async () => {
    let input: unknown;
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [implicitSession("a", 1), multiSession("b", 0)] },
      ...withAdvantage((slots): AdvantageOutputSlot[] => {
        input = slots;
        return [{ null: 0.5 }, { main: -0.5, helper: 0 }];
      }),
    });
    expect(input).toEqual([{ null: { task_success: 1 } }, { main: { outcome: 0 }, helper: { outcome: 0 } }]);
    if (outcome.kind !== "exported") throw new Error(outcome.message);
    expect(outcome.rows.map((row) => [row.context_name, row.advantage])).toEqual([
      [null, 0.5],
      ["main", -0.5],
      ["helper", 0],
    ]);
  });

  it("should drop a Group where a session exports several contexts without custom advantage", async () => {
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [multiSession("a", 1), multiSession("b", 0)] },
      config: assertExportConfig({ nSamplesPerPrompt: 2, agentWritesReward: true }),
    });
    expect(outcome).toMatchObject({ kind: "dropped", reason: "multiple_contexts_without_custom_advantage" });
  });

  it("should drop the Group for a missing, invalid or failing reward", async () => {
    const missing = await exportGroup({
      group: { groupIndex: 0, sessions: [implicitSession("a", 1), implicitSession("b", null)] },
      config: assertExportConfig({ nSamplesPerPrompt: 2, agentWritesReward: true }),
    });
    expect(missing).toMatchObject({ kind: "dropped", reason: "missing_reward" });
    const invalid = await exportGroup({
      group: { groupIndex: 0, sessions: [implicitSession("a", 1), implicitSession("b", { score: 1 })] },
      config: assertExportConfig({ nSamplesPerPrompt: 2, agentWritesReward: true }),
    });
    expect(invalid).toMatchObject({
      kind: "dropped",
      reason: "invalid_reward",
      message:
        "group 0 dropped (invalid_reward): sessions[1].output.reward: is an object, so rewardKey (--reward-key) must name its primary field",
    });
    const reward = () => {
      throw new RangeError("grader offline");
    };
    const failing = await exportGroup({
      group: { groupIndex: 0, sessions: [implicitSession("a", null), implicitSession("b", null)] },
      config: assertExportConfig({ nSamplesPerPrompt: 2, customRm: reward }),
      functions: { reward },
    });
    expect(failing).toMatchObject({
      kind: "dropped",
      reason: "reward_function_error",
      message: "group 0 dropped (reward_function_error): reward function threw: RangeError: grader offline",
    });
  });

  it("should use functions given inline in the config when no functions are passed", async () => {
    const outcome = await exportGroup({
      group: { groupIndex: 0, sessions: [implicitSession("a", null), implicitSession("b", null)] },
      config: assertExportConfig({
        nSamplesPerPrompt: 2,
        customRm: (input: RewardFunctionInput) => input.slot,
      }),
    });
    expect(outcome.kind === "exported" && outcome.rows.map((row) => row.reward)).toEqual([0, 1]);
  });

  it("should refuse a config that names a function it was not given", async () => {
    await expect(
      exportGroup({
        group: { groupIndex: 0, sessions: [] },
        config: assertExportConfig({ nSamplesPerPrompt: 2, customRm: "./rm.mjs" }),
      }),
    ).rejects.toThrow("customRm is configured but not loaded");
  });
});
