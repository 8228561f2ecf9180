import { ConfigError } from "@relax/rollout";
import { describe, expect, it } from "vitest";
import { formatAgentCapacity, planAgentCapacity } from "./plan-agent-capacity";

const base = {
  trainConcurrency: 8,
  nSamplesPerPrompt: 4,
  evalDatasets: ["math", "code"],
  evalConcurrency: 4,
  nSamplesPerEvalPrompt: 2,
  keepsTrainDuringEval: false,
};

describe("planAgentCapacity (the external-capacity table)", () => {
  it("should require T without eval, max(T, E_peak) when train sessions end before eval, T + E_peak when they stay", () => {
    const trainOnly = planAgentCapacity({ ...base, evalDatasets: [] });
    expect(trainOnly).toEqual({
      train: 32,
      trainGroups: 8,
      trainSamples: 4,
      evalGroups: 0,
      evalSamples: 0,
      evalPerDataset: [],
      evalPeak: 0,
      rule: "T",
      required: 32,
    });
    expect(formatAgentCapacity(trainOnly)).toBe("32 (8 Groups × 4 samples)");
    const after = planAgentCapacity({ ...base, evalConcurrency: 20 });
    expect(formatAgentCapacity(after)).toBe(
      "40 = the larger of 32 train (8 Groups × 4 samples) and 40 eval (20 Groups × 2 samples per dataset, 2 datasets in turn), eval after train",
    );
    expect(after).toMatchObject({
      evalPerDataset: [
        { name: "math", sessions: 40 },
        { name: "code", sessions: 40 },
      ],
      evalPeak: 40,
      rule: "max(T, E_peak)",
      required: 40,
    });
    const kept = planAgentCapacity({ ...base, keepsTrainDuringEval: true, agentMaxSlots: 40 });
    expect(kept).toMatchObject({ train: 32, evalPeak: 8, rule: "T + E_peak", required: 40, maxSlots: 40 });
    expect(formatAgentCapacity(kept)).toBe(
      "40 = 32 train (8 Groups × 4 samples) + 8 eval (4 Groups × 2 samples per dataset, 2 datasets in turn), train sessions stay during eval, executor limit 40 (--agent-max-slots)",
    );
    const one = planAgentCapacity({ ...base, trainConcurrency: 1, nSamplesPerPrompt: 1, evalDatasets: [] });
    expect(formatAgentCapacity(one)).toBe("1 (1 Group × 1 sample)");
  });

  it("should refuse an executor limit below the required slots, naming the figures", () => {
    const run = () => planAgentCapacity({ ...base, keepsTrainDuringEval: true, agentMaxSlots: 39 });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(
      "--agent-max-slots 39 is below the 40 agent slots this run needs (40 = 32 train (8 Groups × 4 samples) + 8 eval (4 Groups × 2 samples per dataset, 2 datasets in turn), train sessions stay during eval, executor limit 39 (--agent-max-slots)); Groups would hang",
    );
  });
});
