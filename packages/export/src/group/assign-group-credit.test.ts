import { describe, expect, it } from "vitest";
import { exportedContext, okPlan, plannedContext } from "../../test/plan-fixtures";
import { assertExportConfig } from "../config/validate-export-config";
import type { AdvantageOutputSlot } from "../credit/advantage-function";
import { AdvantageResultError } from "../errors/advantage-result-error";
import { applyCustomAdvantage, applyNormalizedAdvantages } from "./assign-group-credit";
import { collectContexts } from "./group-contexts";

const plans = [
  okPlan("a", [plannedContext("main", null), plannedContext("helper", null)]),
  okPlan("b", [plannedContext("main", null)]),
];

describe("applyCustomAdvantage", () => {
  it("should pass each slot's metadata by context key and set every advantage from the result", async () => {
    const contexts = collectContexts(plans, 0);
    let seen: unknown;
    const result = await applyCustomAdvantage({
      plans,
      contexts,
      advantage: (input) => {
        seen = input;
        const credit: AdvantageOutputSlot[] = [{ main: 1, helper: 0.5 }, { main: -1 }];
        return credit;
      },
    });
    expect(result).toBeUndefined();
    expect(seen).toEqual([
      { main: { name: "main" }, helper: { name: "helper" } },
      { main: { name: "main" } },
    ]);
    expect(contexts.map((c) => c.advantage)).toEqual([1, 0.5, -1]);
  });

  it("should report null as filtered and a throw or a malformed result as a drop", async () => {
    const contexts = collectContexts(plans, 0);
    expect(await applyCustomAdvantage({ plans, contexts, advantage: () => null })).toBe("filtered");
    expect(contexts.map((c) => c.advantage)).toEqual([null, null, null]);
    const threw = await applyCustomAdvantage({
      plans,
      contexts,
      advantage: async () => {
        throw new Error("oops");
      },
    });
    expect(threw).toMatchObject({
      reason: "advantage_function_error",
      message: "custom advantage function threw: Error: oops",
    });
    const malformed = await applyCustomAdvantage({ plans, contexts, advantage: () => [{ main: 1 }] });
    expect(malformed !== "filtered" && malformed?.message).toMatch(/^custom advantage function returned /);
    expect(malformed !== "filtered" && AdvantageResultError.isInstance(malformed?.cause)).toBe(true);
  });
});

describe("applyNormalizedAdvantages", () => {
  const segmented = () => [
    exportedContext(0, { reward: 1 }),
    exportedContext(1, { reward: 0, segment: { index: 0, count: 2, kind: "compaction" } }),
    exportedContext(1, { reward: 0, segment: { index: 1, count: 2, kind: "compaction" } }),
  ];

  it("should normalise over one context per trajectory and copy the last segment's advantage", () => {
    const contexts = segmented();
    applyNormalizedAdvantages(
      contexts,
      assertExportConfig({ nSamplesPerPrompt: 2, agentWritesReward: true }),
    );
    const [a, b] = [contexts[0]!.advantage!, contexts[2]!.advantage!];
    // GRPO over [1, 0]: mean 0.5, unbiased std √0.5.
    expect(a).toBeCloseTo(0.5 / (Math.sqrt(0.5) + 1e-6), 9);
    expect(b).toBeCloseTo(-a, 12);
    expect(contexts[1]!.advantage).toBe(b);
  });

  it("should use the raw reward when normalisation is off", () => {
    const contexts = segmented();
    applyNormalizedAdvantages(
      contexts,
      assertExportConfig({ nSamplesPerPrompt: 2, agentWritesReward: true, rewardsNormalization: false }),
    );
    expect(contexts.map((c) => c.advantage)).toEqual([1, 0, 0]);
  });
});
