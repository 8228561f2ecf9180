import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { readTrainingRowsFile, type TrainingRow } from "@relax/export";
import { createLogger } from "@relax/rollout";
import { resolveConfig } from "@relax/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRollout } from "../src/run-rollout";
import { AGENT_HOME_ENV, expectRowMatchesEngine, fixture, startRecordingEngine } from "./helpers";

const quiet = {
  stdout: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
  logger: createLogger({ level: "silent" }),
};
// The stand-in engine's scripted policy (not a model).
const policy = (request: { promptText: string }) => ({
  text: `Answer ${(request.promptText.match(/<\|im_start\|>assistant/g) ?? []).length}.`,
});

describe("relax rollout with --request-class-policy compaction=train (real agent processes, stand-in engine)", () => {
  let engine: Awaited<ReturnType<typeof startRecordingEngine>>;
  beforeAll(async () => {
    engine = await startRecordingEngine(policy);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("should export each compaction request as its own row with the session's credit, tokens exact, and per-turn rewards on the segments", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-side-e2e-"));
    const config = resolveConfig(
      {},
      {
        agentCommand: `${JSON.stringify(process.execPath)} ${fixture("compaction-agent.mjs")}`,
        sglangUrl: [engine.url],
        promptData: fixture("data.jsonl"),
        nSamplesPerPrompt: 2,
        rolloutBatchSize: 1,
        agentWritesReward: true,
        requestClassPolicy: ["compaction=train"],
        output: join(dir, "rows.jsonl"),
        progress: false,
        logLevel: "silent",
        agentEnv: [AGENT_HOME_ENV],
      },
    );
    expect(config.requestClasses.policies).toEqual({ compaction: "train" });
    const run = await runRollout(config, quiet);
    expect([run.summary.groupsExported, run.summary.groupsDropped]).toEqual([1, 0]);
    const rows: TrainingRow[] = [];
    for await (const row of readTrainingRowsFile(join(dir, "rows.jsonl"))) rows.push(row);
    expect(rows).toHaveLength(6);
    for (const slot of [0, 1]) {
      const own = rows.filter((row) => row.sample_index === slot);
      expect(own.map((row) => [row.context_name, row.request_class ?? "main", row.num_turns])).toEqual([
        [null, "main", 1],
        [null, "main", 1],
        ["compaction:0", "compaction", 1],
      ]);
      const calls = engine.generates.filter(
        (call) => call.headers["x-smg-routing-key"] === own[0]!.session_id,
      );
      expect(calls).toHaveLength(3);
      // Every row is exactly what the engine received and produced, mask 1 on the generated ids only.
      for (const row of own) expectRowMatchesEngine(expect, row, calls);
      const [first, restart, side] = own as [TrainingRow, TrainingRow, TrainingRow];
      expect([side.reward, side.advantage, side.rollout_id]).toEqual([
        restart.reward,
        restart.advantage,
        restart.rollout_id,
      ]);
      expect(side.parent_state_hash).toBe(first.state_hash);
      // turn_rewards [0.25, 0.75] run over the two segments' turns in order; the side row has none.
      expect([first.turn_rewards, restart.turn_rewards, side.turn_rewards]).toEqual([
        [0.25],
        [0.75],
        undefined,
      ]);
      expect(first.turn_reward_positions).toEqual([first.response_length - 1]);
    }
  }, 120_000);
});
