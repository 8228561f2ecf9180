import type { TrainingSample } from "@relax/forest";
import { describe, expect, it } from "vitest";
import type { GroupExportOutcome } from "../group/group-export-outcome";
import { buildTrainingRow } from "../rows/build-training-row";
import type { TrainingRow } from "../rows/training-row";
import { computeRolloutMetrics } from "./compute-rollout-metrics";
import { estimatePassAtK, passRates } from "./pass-at-k";
import { percentile, summaryStats } from "./summary-stats";

/** A small synthetic sample with `turns` response turns (metrics read only the row fields). */
function turnsSample(turns: number): TrainingSample {
  const responseLength = turns * 3;
  return {
    sessionId: `t${turns}`,
    rolloutId: `t${turns}`,
    stateHash: `hash-${turns}`,
    tokens: Array.from({ length: 2 + responseLength }, (_, i) => i),
    promptLength: 2,
    responseLength,
    lossMask: Array.from({ length: responseLength }, (_, i) => (i % 3 === 2 ? 0 : 1)),
    rolloutLogProbs: Array.from({ length: responseLength }, (_, i) => (i % 3 === 2 ? 0 : -0.5)),
    status: "completed",
    weightVersions: ["w"],
    weightVersionSpans: [],
    turnCount: turns,
    turns: Array.from({ length: turns }, (_, i) => ({
      turnIndex: i,
      stateHash: `h${i}`,
      parentStateHash: `h${i - 1}`,
      transition: "append" as const,
      toleratedEdits: [],
      finishReason: "stop" as const,
      responseSpan: [i * 3, i * 3 + 2] as [number, number],
      observationTokens: i === 0 ? 0 : 1,
    })),
  };
}

function row({
  session,
  turns = 1,
  reward,
  details = {},
  metadata = {},
  name = null,
}: {
  session: string;
  turns?: number;
  reward: number | null;
  details?: Record<string, number>;
  metadata?: Record<string, unknown>;
  name?: string | null;
}): TrainingRow {
  return {
    ...buildTrainingRow({
      sample: turnsSample(turns),
      groupIndex: 0,
      promptIndex: 0,
      sampleIndex: 0,
      contextName: name,
      metadata,
      reward,
      rewardDetails: details,
      advantage: 0,
    }),
    session_id: session,
  };
}

const exported = (groupIndex: number, rows: TrainingRow[]): GroupExportOutcome => ({
  kind: "exported",
  groupIndex,
  mode: "train",
  rows,
  contexts: [],
});

describe("summary statistics", () => {
  it("should interpolate percentiles linearly like NumPy", () => {
    // numpy.percentile([1, 2, 3, 4], 90) == 3.7; median of an even list averages the middle pair.
    expect(percentile([4, 1, 3, 2], 90)).toBeCloseTo(3.7, 12);
    expect(percentile([4, 1, 3, 2], 50)).toBe(2.5);
    expect(percentile([7], 99)).toBe(7);
    expect(summaryStats([3, 1, 2])).toEqual({ mean: 2, median: 2, max: 3, min: 1 });
  });

  it("should estimate pass@k without bias (hand-computed)", () => {
    // n=4, c=1: pass@1 = 1/4, pass@2 = 1 − C(3,2)/C(4,2) = 1 − 3/6 = 0.5, pass@4 = 1.
    expect(estimatePassAtK({ n: 4, c: 1, k: 1 })).toBeCloseTo(0.25, 12);
    expect(estimatePassAtK({ n: 4, c: 1, k: 2 })).toBeCloseTo(0.5, 12);
    expect(estimatePassAtK({ n: 4, c: 1, k: 4 })).toBe(1);
    expect(estimatePassAtK({ n: 4, c: 0, k: 4 })).toBe(0);
    expect(
      passRates([
        [true, false, false, false],
        [false, false],
      ]),
    ).toEqual({
      "pass@1": (0.25 + 0) / 2,
      "pass@2": (estimatePassAtK({ n: 4, c: 1, k: 2 }) + 0) / 2,
      "pass@4": 1,
    });
  });
});

describe("computeRolloutMetrics", () => {
  it("should compute reward, helper, metadata, stop-reason, turn, passrate and Group metrics", () => {
    const outcomes: GroupExportOutcome[] = [
      exported(0, [
        row({
          session: "a",
          turns: 1,
          reward: 1,
          details: { format: 1 },
          metadata: { tool_calls: 2, _private: 9 },
        }),
        row({
          session: "b",
          turns: 2,
          reward: 0,
          details: { format: 0.5 },
          metadata: { tool_calls: 4, id: 7 },
        }),
      ]),
      exported(1, [
        row({ session: "c", turns: 3, reward: 1, name: "main", metadata: { tool_calls: 3, passed: true } }),
        row({ session: "c", turns: 1, reward: null, name: "searcher_0", metadata: { agentic_trace: 1 } }),
        row({ session: "d", turns: 4, reward: 0, name: "main", metadata: { rollout_stop_reason: "length" } }),
        row({ session: "d", turns: 1, reward: null, name: "searcher_0" }),
      ]),
      {
        kind: "dropped",
        groupIndex: 2,
        mode: "train",
        reason: "unmatched_record",
        message: "",
        sessions: [],
        contexts: [],
      },
      {
        kind: "dropped",
        groupIndex: 3,
        mode: "train",
        reason: "unmatched_record",
        message: "",
        sessions: [],
        contexts: [],
      },
      {
        kind: "filtered",
        groupIndex: 4,
        mode: "train",
        reason: "advantage_function_returned_null",
        message: "",
        contexts: [],
      },
    ];
    const turns = [1, 2, 3, 1, 4, 1];
    expect(computeRolloutMetrics({ outcomes, logPassrate: true })).toEqual({
      "tool_calls/mean": 3,
      "tool_calls/median": 3,
      "tool_calls/max": 4,
      "tool_calls/min": 2,
      "rollout/raw_reward": 0.5,
      "rollout/format/mean": 0.75,
      "rollout/format/median": 0.75,
      "rollout/format/max": 1,
      "rollout/format/min": 0.5,
      "stop_reason/stop/count": 5,
      "stop_reason/stop/ratio": 5 / 6,
      "stop_reason/length/count": 1,
      "stop_reason/length/ratio": 1 / 6,
      "num_turn/min": 1,
      "num_turn/mean": 2,
      "num_turn/max": 4,
      "num_turn/p50": percentile(turns, 50),
      "num_turn/p90": percentile(turns, 90),
      "num_turn/p99": percentile(turns, 99),
      // Per session, the representative context is the one carrying a reward: a ✓, b ✗ | c ✓, d ✗.
      "passrate/pass@1": 0.5,
      "passrate/pass@2": 1,
      "rollout/exported_groups": 2,
      "rollout/rows": 6,
      "rollout/dropped_groups": 2,
      "rollout/dropped_groups/unmatched_record": 2,
      "rollout/filtered_groups": 1,
      "rollout/filtered_groups/advantage_function_returned_null": 1,
    });
    expect(percentile(turns, 90)).toBeCloseTo(3.5, 12);
  });

  it("should prefix every key and omit statistics without data", () => {
    expect(computeRolloutMetrics({ outcomes: [], prefix: "eval/" })).toEqual({
      "eval/rollout/exported_groups": 0,
      "eval/rollout/rows": 0,
      "eval/rollout/dropped_groups": 0,
      "eval/rollout/filtered_groups": 0,
    });
  });
});
