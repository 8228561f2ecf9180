import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { describe, expect, it, vi } from "vitest";
import { isDroppedGroup } from "../group/group-outcome";
import type { GroupResult } from "../group/run-group";
import type { RunReporter } from "../report/run-reporter";
import { dropFix, GroupTally, logDrop } from "./group-tally";

function recordingLogger() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) =>
    lines.push({ level, fields, message });
  return { lines, logger: { warn: at("warn"), debug: at("debug") } as unknown as Logger };
}

const reporter = { groupExported: vi.fn(), groupDropped: vi.fn() } as unknown as RunReporter;

const drop = (reason: string, message = "agent failed", logPath?: string): GroupResult => ({
  kind: "dropped",
  groupId: `g-${reason}`,
  prompt: { index: 3 } as GroupResult["prompt"],
  reason,
  message,
  sessions: [],
  outcomes: logPath !== undefined ? ([{ logPath }] as unknown as GroupResult["outcomes"]) : [],
});

describe("isDroppedGroup", () => {
  it("should count every drop reason but interrupted and over_sampled", () => {
    expect(
      ["agent_failed", "shard_failed", "interrupted", "over_sampled"].map((r) => isDroppedGroup(drop(r))),
    ).toEqual([true, true, false, false]);
  });
});

describe("GroupTally", () => {
  it("should stall after maxConsecutiveDrops agent drops in a row, backend drops aside, an export resetting the count", () => {
    const { logger } = recordingLogger();
    const tally = new GroupTally({ rolloutId: 2, maxConsecutiveDrops: 2, logger, reporter });
    expect(tally.record(drop("agent_failed"))).toBe("dropped");
    expect(tally.record({ kind: "exported" } as GroupResult)).toBe("exported");
    expect(tally.record(drop("shard_failed"))).toBe("dropped");
    expect(tally.record(drop("interrupted"))).toBe("not_counted");
    expect(tally.record(drop("agent_failed"))).toBe("dropped");
    expect(tally.stalled).toBeUndefined();
    tally.record(drop("agent_exit", "exited with code 1\nTraceback\nValueError: bad"));
    expect(tally.stalled?.message).toBe(
      "rollout 2: 2 Groups dropped in a row (last: agent_exit: exited with code 1); check --agent-command and the session logs",
    );
  });

  it("should name the export fix when the last drop is an ambiguous implicit export, not the agent command", () => {
    const { logger } = recordingLogger();
    const tally = new GroupTally({ rolloutId: 4, maxConsecutiveDrops: 2, logger, reporter });
    tally.record(drop("agent_exit", "exited with code 1"));
    tally.record(
      drop(
        "ambiguous_implicit_export",
        "session s0: implicit export needs exactly one exportable leaf of a strictly linear history, or one per compaction segment or agent context: implicit export requires strictly linear history, but turn 2 was a reset",
      ),
    );
    expect(tally.stalled?.message).toBe(
      "rollout 4: 2 Groups dropped in a row (last: ambiguous_implicit_export: session s0: implicit export needs exactly one " +
        "exportable leaf of a strictly linear history, or one per compaction segment or agent context: implicit export " +
        "requires strictly linear history, but turn 2 was a reset); the agent's history is not one linear context: write " +
        "export records (docs/contract.md#export-records), or set --agent-contexts train when it switches agent " +
        "(system prompt, tools); see the session logs",
    );
  });

  it("should name the fix of each kind of drop reason", () => {
    expect(
      [
        "unmatched_record",
        "invalid_output",
        "multiple_contexts_without_custom_advantage",
        "agent_failed",
      ].map(dropFix),
    ).toEqual([
      "fix the agent's export output (docs/contract.md#export-records); see the session logs",
      "fix the agent's export output (docs/contract.md#export-records); see the session logs",
      "sessions export several contexts: set --agentic-multi-context and --agentic-custom-advantage-path " +
        "(docs/contract.md#custom-advantage), or export one context per session",
      "check --agent-command and the session logs",
    ]);
  });
});

describe("logDrop", () => {
  it("should write one WARN line with the last log line, the full message at DEBUG and in the session log", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-drop-"));
    const log = join(dir, "session-a.log");
    writeFileSync(log, "agent output\n");
    const { lines, logger } = recordingLogger();
    const message =
      "agent session-a exited with code 1\n  at f (a.js:1)\n  at g (a.js:2)\nError: UND_ERR_SOCKET\n";
    logDrop(logger, 0, drop("agent_exit", message, log) as Extract<GroupResult, { kind: "dropped" }>);
    expect(lines[0]).toEqual({
      level: "warn",
      fields: {
        rollout: 0,
        group: "g-agent_exit",
        reason: "agent_exit",
        prompt_index: 3,
        last_log_line: "Error: UND_ERR_SOCKET",
        logs: [log],
      },
      message: "AGENTIC Dropped 1 group: agent session-a exited with code 1",
    });
    expect(lines[1]).toMatchObject({
      level: "debug",
      fields: { details: "  at f (a.js:1)\n  at g (a.js:2)\nError: UND_ERR_SOCKET\n" },
    });
    await vi.waitFor(() =>
      expect(readFileSync(log, "utf8")).toBe(
        `agent output\n\n[relax] Group g-agent_exit dropped (agent_exit): ${message}\n`,
      ),
    );
  });
});
