import type { TrainingRow } from "@relax/export";
import { RunReporter } from "@relax/rollout";
import { describe, expect, it } from "vitest";
import { formatSummary, summarizeRun } from "./format-summary";

const row = (session: string, reward: number) =>
  ({
    session_id: session,
    num_turns: 1,
    reward,
    response_length: 3,
    tokens: [1, 2, 3, 4],
    loss_mask: [0, 1, 1, 1],
  }) as unknown as TrainingRow;

describe("summarizeRun", () => {
  it("should count train Groups only, and report eval Groups and reward apart", () => {
    const reporter = new RunReporter({ progress: false });
    const group = (_mode: string) => ({ kind: "exported", sessions: [{}, {}] }) as never;
    reporter.startStep({ rolloutId: 0, mode: "train", sessions: 4 });
    reporter.groupExported(group("train"));
    reporter.groupExported(group("train"));
    reporter.groupDropped({ kind: "dropped", reason: "agent_timeout", sessions: [] } as never);
    reporter.startStep({ rolloutId: 0, mode: "eval", sessions: 3 });
    for (let i = 0; i < 3; i++) reporter.groupExported(group("eval"));
    reporter.groupDropped({ kind: "dropped", reason: "agent_exit", sessions: [] } as never);

    const summary = summarizeRun({
      rows: [row("a", 1), row("b", 0), row("c", 1), row("d", 1)],
      evalRows: [row("e", 1), row("f", 0), row("g", 0)],
      evalRuns: [
        { dataset: "aime", rolloutId: 0, rows: [row("e", 1)] },
        { dataset: "gsm8k", rolloutId: 0, rows: [row("f", 0)] },
        { dataset: "aime", rolloutId: 1, rows: [row("g", 0)] },
      ],
      counters: reporter.counters,
      steps: 1,
      wallSeconds: 2,
    });
    expect(summary).toMatchObject({
      groupsExported: 2,
      groupsDropped: 1,
      dropReasons: { agent_timeout: 1 },
      sessions: 4,
      rows: 4,
      eval: {
        groupsExported: 3,
        groupsDropped: 1,
        rows: 3,
        rewardMean: 1 / 3,
        // The latest run of each dataset, in the order the datasets first ran.
        datasets: [
          { name: "aime", runs: 2, rolloutId: 1, rows: 1, rewardMean: 0 },
          { name: "gsm8k", runs: 1, rolloutId: 0, rows: 1, rewardMean: 0 },
        ],
      },
    });
    const table = formatSummary(summary).split("\n");
    expect(table.find((line) => line.startsWith("| groups exported "))).toMatch(/\| 2 +\|$/);
    expect(table.find((line) => line.startsWith("| groups dropped "))).toMatch(
      /\| 1 \(agent_timeout: 1\) +\|$/,
    );
    expect(table.find((line) => line.startsWith("| eval groups exported / dropped "))).toMatch(
      /\| 3 \/ 1 +\|$/,
    );
    expect(table.find((line) => line.startsWith("| eval reward mean "))).toMatch(/\| 0\.333 +\|$/);
    expect(table.find((line) => line.startsWith("| eval aime reward mean "))).toMatch(
      /\| 0\.000 \(rollout 1, 1 rows, latest of 2 runs\) +\|$/,
    );
    expect(table.find((line) => line.startsWith("| eval gsm8k reward mean "))).toMatch(
      /\| 0\.000 \(rollout 0, 1 rows\) +\|$/,
    );
    expect(summarizeRun({ rows: [], counters: reporter.counters, steps: 0, wallSeconds: 0 }).eval).toBeNull();
  });

  it("should count refusals, unhonoured contract fields and parser issues, with rows only when there are some", () => {
    const reporter = new RunReporter({ progress: false });
    const quiet = formatSummary(
      summarizeRun({ rows: [], counters: reporter.counters, steps: 0, wallSeconds: 0 }),
    );
    expect(quiet).not.toContain("requests refused");
    reporter.requestRefused(400);
    reporter.requestRefused(400);
    reporter.requestRefused(404);
    reporter.contractChanged("response_format");
    reporter.parseIssues(["malformed_tool_call", "unknown_tool", "malformed_tool_call"]);
    const summary = summarizeRun({ rows: [], counters: reporter.counters, steps: 0, wallSeconds: 0 });
    expect(summary).toMatchObject({
      refusals: { "400": 2, "404": 1 },
      contractChanges: { response_format: 1 },
      parseIssues: { malformed_tool_call: 2, unknown_tool: 1 },
    });
    const table = formatSummary(summary).split("\n");
    expect(table.find((line) => line.startsWith("| requests refused "))).toMatch(/\| 400: 2, 404: 1 +\|$/);
    expect(table.find((line) => line.startsWith("| contract fields not honoured "))).toMatch(
      /\| response_format: 1 +\|$/,
    );
    expect(table.find((line) => line.startsWith("| parser issues "))).toMatch(
      /\| malformed_tool_call: 2, unknown_tool: 1 +\|$/,
    );
  });
});
