import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { readTrainingRowsFile, type TrainingRow } from "@relax/export";
import { createLogger } from "@relax/rollout";
import type { RolloutConfigInput } from "@relax/runtime";
import { resolveConfig } from "@relax/runtime";
import { searchCreditAdvantage } from "@relax-examples/multi-agent";
import { describe, expect, it } from "vitest";
import { runRollout } from "../src/run-rollout";
import {
  AGENT_HOME_ENV,
  expectRowMatchesEngine,
  type RecordedGenerate,
  startRecordingEngine,
} from "./helpers";

const example = (path: string) => fileURLToPath(new URL(`../../../examples/${path}`, import.meta.url));
const quiet = {
  stdout: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
  logger: createLogger({ level: "silent" }),
};

async function readRows(path: string): Promise<TrainingRow[]> {
  const rows: TrainingRow[] = [];
  for await (const row of readTrainingRowsFile(path)) rows.push(row);
  return rows;
}

/** Runs an example agent under `relax rollout` against the recording stand-in engine with its policy. */
async function runExample(options: { policyModule: string; flags: Partial<RolloutConfigInput> }) {
  const { default: policy } = await import(options.policyModule);
  const engine = await startRecordingEngine(policy);
  const dir = mkdtempSync(join(tmpdir(), "relax-example-"));
  try {
    const config = resolveConfig(
      {},
      {
        sglangUrl: [engine.url],
        agenticToolCallParser: "qwen25",
        agenticReasoningParser: "qwen3",
        agentWritesReward: true,
        rolloutDeterministicSeed: true,
        output: join(dir, "rows.jsonl"),
        progress: false,
        logLevel: "silent",
        ...options.flags,
      },
    );
    const run = await runRollout(config, quiet);
    const rows = await readRows(join(dir, "rows.jsonl"));
    return { run, rows, generates: [...engine.generates] };
  } finally {
    await engine.close();
  }
}

function callsOf(generates: readonly RecordedGenerate[], sessionId: string): RecordedGenerate[] {
  return generates.filter((call) => call.headers["x-smg-routing-key"] === sessionId);
}

function expectGrpo(rows: readonly TrainingRow[]) {
  for (const group of new Set(rows.map((row) => row.group_index))) {
    const members = rows.filter((row) => row.group_index === group);
    const rewards = members.map((row) => row.reward as number);
    const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
    const std = Math.sqrt(rewards.reduce((a, b) => a + (b - mean) ** 2, 0) / (rewards.length - 1));
    for (const row of members) {
      expect(row.advantage).toBeCloseTo(((row.reward as number) - mean) / (std + 1e-6), 9);
    }
  }
}

describe("examples under relax rollout (real agent processes, stand-in engine — not a model)", () => {
  it("gsm8k-calculator: multi-turn calculator tool calls, exact-match rewards, GRPO per Group", async () => {
    const { run, rows, generates } = await runExample({
      policyModule: "@relax-examples/gsm8k-calculator/policy",
      flags: {
        promptData: example("gsm8k-calculator/data/gsm8k-relax.jsonl"),
        metadataKey: "metadata",
        agentCommand: `${JSON.stringify(process.execPath)} ${example("gsm8k-calculator/dist/agent.js")}`,
        agentEnv: [AGENT_HOME_ENV],
        nSamplesPerPrompt: 3,
        rolloutBatchSize: 2,
      },
    });
    expect(run.summary.groupsDropped).toBe(0);
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      expectRowMatchesEngine(expect, row, callsOf(generates, row.session_id));
      const metadata = row.metadata as { answer: string; predicted: string | null; tool_calls: number };
      expect(row.reward).toBe(metadata.predicted === metadata.answer ? 1 : 0);
      // One engine turn per calculator call, plus the final answer.
      expect(row.num_turns).toBe(metadata.tool_calls + 1);
    }
    expectGrpo(rows);
  }, 180_000);

  it("anthropic-agent: the same task through @anthropic-ai/sdk and streamed /v1/messages", async () => {
    const { run, rows, generates } = await runExample({
      policyModule: "@relax-examples/anthropic-agent/policy",
      flags: {
        promptData: example("gsm8k-calculator/data/gsm8k-relax.jsonl"),
        metadataKey: "metadata",
        agentCommand: `${JSON.stringify(process.execPath)} ${example("anthropic-agent/dist/agent.js")}`,
        agentEnv: [AGENT_HOME_ENV],
        nSamplesPerPrompt: 2,
        rolloutBatchSize: 1,
      },
    });
    expect(run.summary.groupsDropped).toBe(0);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expectRowMatchesEngine(expect, row, callsOf(generates, row.session_id));
      const metadata = row.metadata as { answer: string; predicted: string | null };
      expect(row.reward).toBe(metadata.predicted === metadata.answer ? 1 : 0);
      expect(row.num_turns).toBeGreaterThan(1);
    }
    expectGrpo(rows);
  }, 180_000);

  it("minimal-agent: one chat call per session, reward 1, zero advantages", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-minimal-"));
    writeFileSync(
      join(dir, "prompts.jsonl"),
      '{"prompt": "Why is the sky blue?"}\n{"prompt": "Name a prime number."}\n',
    );
    const { run, rows, generates } = await runExample({
      policyModule: "@relax-examples/minimal-agent/policy",
      flags: {
        promptData: join(dir, "prompts.jsonl"),
        agentCommand: `${JSON.stringify(process.execPath)} ${example("minimal-agent/dist/agent.js")}`,
        agentEnv: [AGENT_HOME_ENV],
        nSamplesPerPrompt: 2,
        rolloutBatchSize: 2,
      },
    });
    expect(run.summary.groupsExported).toBe(2);
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expectRowMatchesEngine(expect, row, callsOf(generates, row.session_id));
      expect(row.num_turns).toBe(1);
      expect(row.reward).toBe(1);
      expect(row.advantage).toBe(0);
      expect(row.metadata).toMatchObject({ task_success: 1 });
    }
  }, 180_000);

  it("multi-agent: main and searcher contexts exported explicitly, credited by the custom advantage", async () => {
    const { run, rows, generates } = await runExample({
      policyModule: "@relax-examples/multi-agent/policy",
      flags: {
        promptData: example("multi-agent/data/multi-agent-relax.jsonl"),
        metadataKey: "metadata",
        agentCommand: `${JSON.stringify(process.execPath)} ${example("multi-agent/dist/agent.js")}`,
        agentEnv: [AGENT_HOME_ENV],
        agenticMultiContext: true,
        agenticCustomAdvantagePath: `${example("multi-agent/dist/advantage.js")}#advantage`,
        useDynamicBatchSize: true,
        maxTokensPerGpu: 16_384,
        nSamplesPerPrompt: 3,
        rolloutBatchSize: 1,
      },
    });
    expect(run.summary.groupsDropped).toBe(0);
    const sessions = [...new Set(rows.map((row) => row.session_id))];
    expect(sessions).toHaveLength(3);
    for (const row of rows) expectRowMatchesEngine(expect, row, callsOf(generates, row.session_id));
    // Every session exports its main context (with the reward) and one context per search it ran.
    const input = sessions.map((sessionId) => {
      const contexts = rows.filter((row) => row.session_id === sessionId);
      const names = contexts.map((row) => row.context_name);
      expect(names[0]).toBe("main");
      expect(names.slice(1)).toEqual(names.slice(1).map((_, k) => `searcher_${k}`));
      expect(contexts.filter((row) => row.reward !== null).map((row) => row.context_name)).toEqual(["main"]);
      return Object.fromEntries(contexts.map((row) => [row.context_name as string, row.metadata]));
    });
    // The credit is exactly what the example's advantage function gives for these contexts, in Group order.
    const expected = await searchCreditAdvantage(input as never);
    // With the deterministic seed, the stand-in policy's seeded mistakes make the outcomes differ.
    expect(expected).not.toBeNull();
    expect(rows.some((row) => row.advantage !== 0)).toBe(true);
    for (const [slot, sessionId] of sessions.entries()) {
      for (const row of rows.filter((r) => r.session_id === sessionId)) {
        expect(row.advantage).toBe(expected![slot]![row.context_name as string]);
      }
    }
    expect(new Set(rows.map((row) => row.rollout_id)).size).toBe(3);
  }, 180_000);
});
