import { describe, expect, it } from "vitest";
import { exportedContext, fakeSample, okPlan, plannedContext } from "../../test/plan-fixtures";
import type { ExportFunctions } from "../config/resolve-export-functions";
import { RewardValueError } from "../errors/reward-value-error";
import type { SessionExportPlan } from "../plan/plan-session-export";
import type { RewardFunctionInput } from "../reward/reward-function";
import { collectContexts } from "./group-contexts";
import { copySegmentRewards, resolveGroupRewards, rewardFunctionInput } from "./resolve-group-rewards";

function setup(plans: SessionExportPlan[], functions: ExportFunctions = {}, rewardKey?: string) {
  const contexts = collectContexts(plans, 2);
  const sessions = plans.map((plan) => ({
    sessionId: plan.sessionId,
    output: null,
    forest: {} as never,
    datasetSample: { prompt: plan.sessionId },
  }));
  const run = () => resolveGroupRewards({ contexts, plans, sessions, groupIndex: 2, functions, rewardKey });
  return { contexts, run };
}

describe("resolveGroupRewards", () => {
  it("should resolve exported rewards, with details of a reward object", async () => {
    const { contexts, run } = setup(
      [
        okPlan("a", [plannedContext(null, 1)]),
        okPlan("b", [plannedContext(null, { score: 0.5, len: 3, tag: "x" })]),
      ],
      {},
      "score",
    );
    expect(await run()).toBeUndefined();
    expect(contexts.map((c) => [c.reward, c.rewardDetails])).toEqual([
      [1, {}],
      [0.5, { len: 3 }],
    ]);
  });

  it("should drop an unusable exported reward with its planned path", async () => {
    const { run } = setup([
      okPlan("a", [plannedContext(null, 1)]),
      okPlan("b", [plannedContext("main", Number.NaN)]),
    ]);
    const drop = await run();
    expect(drop?.reason).toBe("invalid_reward");
    expect(drop?.message).toContain("sessions[1].records[main].reward");
    expect(RewardValueError.isInstance(drop?.cause)).toBe(true);
  });

  it("should drop a Group with a context still without reward, unless a custom advantage will assign credit", async () => {
    const plans = [okPlan("a", [plannedContext("main", null)])];
    expect(await setup(plans).run()).toEqual({
      reason: "missing_reward",
      message: 'session a context "main" has no reward, and no reward function supplied one',
    });
    expect(await setup(plans, { advantage: () => null }).run()).toBeUndefined();
  });

  it("should let a group reward function replace every reward, and check its length", async () => {
    const seen: RewardFunctionInput[][] = [];
    const plans = [okPlan("a", [plannedContext(null, 1)]), okPlan("b", [plannedContext(null, null)])];
    const replaced = setup(plans, {
      groupReward: (inputs) => {
        seen.push(inputs);
        return [0.25, 0.75];
      },
    });
    expect(await replaced.run()).toBeUndefined();
    expect(replaced.contexts.map((c) => c.reward)).toEqual([0.25, 0.75]);
    expect(seen[0]!.map((input) => [input.sessionId, input.exportedReward, input.datasetSample])).toEqual([
      ["a", 1, { prompt: "a" }],
      ["b", null, { prompt: "b" }],
    ]);
    const short = await setup(plans, { groupReward: () => [1] }).run();
    expect(short).toEqual({
      reason: "reward_function_error",
      message: "group reward function must return a list of 2 rewards (one per context), got 1",
    });
    const threw = await setup(plans, {
      groupReward: () => {
        throw new TypeError("nope");
      },
    }).run();
    expect(threw?.message).toBe("group reward function threw: TypeError: nope");
  });

  it("should call a per-sample reward function only for last segments without a reward", async () => {
    const called: string[] = [];
    const plans = [
      okPlan("a", [plannedContext(null, 1)]),
      okPlan("b", [
        plannedContext(null, null, { segment: { index: 0, count: 2, kind: "compaction" } }),
        plannedContext(null, null, { segment: { index: 1, count: 2, kind: "compaction" } }),
      ]),
    ];
    const { contexts, run } = setup(plans, {
      reward: async (input) => {
        called.push(`${input.sessionId}:${input.slot}`);
        return 0.5;
      },
    });
    expect(await run()).toBeUndefined();
    expect(called).toEqual(["b:1"]);
    expect(contexts.map((c) => c.reward)).toEqual([1, 0.5, 0.5]);
  });

  it("should not call a per-sample reward function under a custom advantage, and drop on its bad value", async () => {
    const plans = [okPlan("a", [plannedContext("main", null)])];
    let calls = 0;
    const skipped = setup(plans, { reward: () => ++calls, advantage: () => null });
    expect(await skipped.run()).toBeUndefined();
    expect(calls).toBe(0);
    const bad = await setup(plans, { reward: () => "high" as never }).run();
    expect(bad?.reason).toBe("reward_function_error");
    expect(bad?.message).toContain("reward(sessions[0].main)");
  });
});

describe("rewardFunctionInput", () => {
  it("should copy metadata and decode the prompt and response when a decoder is given", () => {
    const context = exportedContext(1, { metadata: { deep: { n: 1 } }, sample: fakeSample([5, 6, 7], 1) });
    const input = rewardFunctionInput(context, {
      groupIndex: 4,
      sessions: [],
      decode: (ids) => ids.join("+"),
    });
    expect(input).toMatchObject({
      sessionId: "s1",
      groupIndex: 4,
      slot: 1,
      contextName: null,
      promptText: "5",
      responseText: "6+7",
    });
    expect(input.metadata).toEqual({ deep: { n: 1 } });
    expect(input.metadata).not.toBe(context.metadata);
    expect("datasetSample" in input).toBe(false);
    expect("promptText" in rewardFunctionInput(context, { groupIndex: 4, sessions: [] })).toBe(false);
  });
});

describe("copySegmentRewards", () => {
  it("should give earlier segments their session's last segment's reward and details", () => {
    const first = exportedContext(0, { segment: { index: 0, count: 2, kind: "compaction" } });
    const last = exportedContext(0, {
      segment: { index: 1, count: 2, kind: "compaction" },
      reward: 3,
      rewardDetails: { k: 1 },
    });
    copySegmentRewards([first, last]);
    expect([first.reward, first.rewardDetails]).toEqual([3, { k: 1 }]);
    expect(first.rewardDetails).not.toBe(last.rewardDetails);
  });
});
