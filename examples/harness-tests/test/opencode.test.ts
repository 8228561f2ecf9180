import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { decodeGenerates, expectRowMatchesEngine, runHarness } from "./run-harness";

const agent = fileURLToPath(new URL("../../opencode/agent.mjs", import.meta.url));

describe("opencode 1.18.33 under relax rollout (stand-in engine, a script — not a model)", () => {
  it("should create the file with its write tool, answer, and export one trained context", async () => {
    const run = await runHarness({ agentCommand: `${JSON.stringify(process.execPath)} ${agent}` });
    console.log(JSON.stringify(run.classified), run.sessions, run.groupsDropped, run.agentLogs.slice(-3000), await decodeGenerates(run.generates));
    expect(run.groupsDropped).toBe(0);
    expect(run.sessions).toEqual([expect.objectContaining({ exitCode: 0, fileWritten: true })]);
    expect(run.rows).toHaveLength(1);
    for (const row of run.rows) expectRowMatchesEngine(expect, row, run.generates.filter((g) => g.routingKey === row.session_id));
  }, 300_000);
});
