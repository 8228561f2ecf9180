import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { decodeGenerates, expectRowMatchesEngine, runHarness } from "./run-harness";

const agent = fileURLToPath(new URL("../../qwen-code/agent.mjs", import.meta.url));
const node = JSON.stringify(process.execPath);

describe("Qwen Code's provider retry under relax rollout (stand-in engine with a scripted policy — not a model)", () => {
  it("should answer the retry of a slow first turn from the generation already running: one engine call per state, the Group exported", async () => {
    // Qwen Code 0.24.4 gives up on a stream after `QWEN_STREAM_IDLE_TIMEOUT_MS` without a chunk (240 s by
    // default) and re-sends the same request ("Retrying provider attempt"). The first turn is held 7 s
    // before the engine sees it; the CLI gives up after 2.5 s and retries.
    const run = await runHarness({
      agentCommand: `${node} ${JSON.stringify(agent)}`,
      flags: { agentEnv: ["QWEN_STREAM_IDLE_TIMEOUT_MS=2500"] },
      firstGenerateDelayMs: 7000,
    });
    if (run.groupsDropped !== 0 || !run.sessions[0]?.fileWritten) {
      throw new Error(
        `the run did not complete: ${JSON.stringify(run.sessions)}\n${run.agentLogs.slice(-3000)}\n${(await decodeGenerates(run.generates)).slice(-2000)}`,
      );
    }
    // The CLI did retry the first request (its own log line; once or twice before the answer came).
    expect(run.agentLogs).toContain("Retrying provider attempt");
    // Never two generations from one prompt: every engine call continued a different state.
    const prompts = run.generates.map((call) => call.request.input_ids.join(","));
    expect(new Set(prompts).size).toBe(prompts.length);
    expect(run.generates).toHaveLength(2);
    expect(run.rows).toHaveLength(1);
    const row = run.rows[0]!;
    expectRowMatchesEngine(expect, row, run.generates);
    expect(row.num_turns).toBe(2);
    expect(row.reward).toBe(1);
  }, 180_000);
});
