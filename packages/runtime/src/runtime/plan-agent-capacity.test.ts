import { describe, expect, it } from "vitest";
import { ConfigError } from "../config/load-config";
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
    expect(planAgentCapacity({ ...base, evalDatasets: [] })).toEqual({
      train: 32,
      evalPerDataset: [],
      evalPeak: 0,
      rule: "T",
      required: 32,
    });
    expect(planAgentCapacity({ ...base, evalConcurrency: 20 })).toMatchObject({
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
      "T=32 E_peak=8 T+E_peak=40 required=40 (T + E_peak) agent-max-slots=40",
    );
  });

  it("should refuse an executor limit below the required slots, naming the figures", () => {
    const run = () => planAgentCapacity({ ...base, keepsTrainDuringEval: true, agentMaxSlots: 39 });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(
      "--agent-max-slots 39 is below the 40 agent slots this run needs (T=32 E_peak=8 T+E_peak=40 required=40 (T + E_peak) agent-max-slots=39)",
    );
  });
});
