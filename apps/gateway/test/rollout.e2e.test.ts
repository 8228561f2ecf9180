import { chmodSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { readTrainingRowsFile } from "@relax/export";
import { createLogger } from "@relax/rollout";
import type { RolloutConfigInput } from "@relax/runtime";
import { resolveConfig } from "@relax/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRollout } from "../src/run-rollout";
import {
  AGENT_HOME_ENV,
  expectRowMatchesEngine,
  fixture,
  leftoverAgentProcesses,
  type RecordedGenerate,
  startRecordingEngine,
} from "./helpers";

const sink = () =>
  new Writable({
    write(_chunk, _encoding, callback) {
      callback();
    },
  });
async function readRows(path: string) {
  const rows = [];
  for await (const row of readTrainingRowsFile(path)) rows.push(row);
  return rows;
}

const quiet = { stdout: sink(), logger: createLogger({ level: "silent" }) };

// The stand-in engine's scripted policy (not a model): reasoning, then a fixed answer per turn.
const policy = (request: { promptText: string }) => {
  const turn = (request.promptText.match(/<\|im_start\|>assistant/g) ?? []).length;
  return { text: `<think>\nturn ${turn}\n</think>\n\nAnswer ${turn}.` };
};

describe("relax rollout end to end (real agent processes, stand-in engine)", () => {
  let engine: Awaited<ReturnType<typeof startRecordingEngine>>;
  beforeAll(async () => {
    engine = await startRecordingEngine(policy);
  });
  afterAll(async () => {
    await engine.close();
  });

  /** A run of the fixture agent (`fixtures/echo-agent.mjs`) against the recording engine; `flags` on top. */
  const echoAgentConfig = (dir: string, flags: Partial<RolloutConfigInput>) =>
    resolveConfig(
      {},
      {
        metadataKey: "metadata",
        agentCommand: `${JSON.stringify(process.execPath)} ${fixture("echo-agent.mjs")}`,
        sglangUrl: [engine.url],
        agentWritesReward: true,
        output: join(dir, "rows.jsonl"),
        progress: false,
        logLevel: "silent",
        ...flags,
        agentEnv: [...(flags.agentEnv ?? []), AGENT_HOME_ENV],
      },
    );

  it("should write rows holding exactly the ids the engine received and produced, with exact masks, logprobs, rewards and GRPO advantages", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-e2e-"));
    // The agents write RESULT_DIR (as root they run under their own uids). Not the rows folder: that one
    // is hidden from agents (docs/security.md), so their results go to a folder of their own.
    const results = mkdtempSync(join(tmpdir(), "relax-e2e-results-"));
    chmodSync(results, 0o777);
    const config = echoAgentConfig(dir, {
      promptData: fixture("data.jsonl"),
      agentEnv: ["AGENT_TURNS=3", `RESULT_DIR=${results}`],
      nSamplesPerPrompt: 3,
      rolloutBatchSize: 2,
      agenticReasoningParser: "qwen3",
    });
    const run = await runRollout(config, quiet);
    expect(run.summary.groupsExported).toBe(2);
    expect(run.summary.groupsDropped).toBe(0);

    const rows = await readRows(join(dir, "rows.jsonl"));
    expect(rows).toHaveLength(6);
    const bySession = new Map<string, RecordedGenerate[]>();
    for (const call of engine.generates) {
      const session = String(call.headers["x-smg-routing-key"]);
      bySession.set(session, [...(bySession.get(session) ?? []), call]);
    }
    for (const row of rows) {
      const calls = bySession.get(row.session_id) ?? [];
      expect(calls).toHaveLength(3);
      // Each turn's input is the previous input + the previous output + an observation delta.
      for (let k = 1; k < calls.length; k++) {
        const previous = [...calls[k - 1]!.request.input_ids, ...calls[k - 1]!.response.output_ids];
        expect(calls[k]!.request.input_ids.slice(0, previous.length)).toEqual(previous);
      }
      // tokens = last input + last output; loss_mask / logprobs exactly on every turn's generated ids.
      expectRowMatchesEngine(expect, row, calls);
      const last = calls.at(-1)!;
      expect(row.num_turns).toBe(3);
      expect(row.status).toBe("completed");
      // The stop token is in the row, exactly as the engine returned it (<|im_end|> = 151645).
      expect(last.response.output_ids.at(-1)).toBe(151645);
      expect(row.tokens.at(-1)).toBe(151645);
      const written = JSON.parse(readFileSync(join(results, `${row.session_id}.json`), "utf8"));
      expect(row.reward).toBe(written.reward);
    }
    // GRPO per Group: (r - mean) / (unbiased std + 1e-6), broadcast over the loss mask.
    for (const group of [0, 1]) {
      const members = rows.filter((row) => row.group_index === group);
      expect(members).toHaveLength(3);
      const rewards = members.map((row) => row.reward as number);
      const mean = rewards.reduce((a, b) => a + b, 0) / 3;
      const std = Math.sqrt(rewards.reduce((a, b) => a + (b - mean) ** 2, 0) / 2);
      for (const row of members) {
        expect(row.advantage).toBeCloseTo(((row.reward as number) - mean) / (std + 1e-6), 9);
        expect(row.advantages).toEqual(row.loss_mask.map((m) => (m === 1 ? row.advantage : 0)));
      }
    }
    expect(readdirSync(results).filter((file) => file.endsWith(".json"))).toHaveLength(6);
  }, 120_000);

  it("should keep one context when the agent replays history without reasoning (tolerated drift), with the generated tokens intact", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-e2e-drift-"));
    const before = engine.generates.length;
    const config = echoAgentConfig(dir, {
      promptData: fixture("drift.jsonl"),
      agentEnv: ["AGENT_TURNS=3"],
      nSamplesPerPrompt: 2,
      rolloutBatchSize: 1,
      agenticReasoningParser: "qwen3",
      saveDebugRolloutData: join(dir, "debug-{rollout_id}.json"),
    });
    const run = await runRollout(config, quiet);
    expect(run.summary.groupsExported).toBe(1);
    const rows = await readRows(join(dir, "rows.jsonl"));
    expect(rows).toHaveLength(2);
    const calls = engine.generates.slice(before);
    for (const row of rows) {
      const own = calls.filter((call) => call.headers["x-smg-routing-key"] === row.session_id);
      expect(own).toHaveLength(3);
      const last = own.at(-1)!;
      // The committed reasoning tokens stay in the lineage although the agent no longer sends them.
      expect(row.tokens).toEqual([...last.request.input_ids, ...last.response.output_ids]);
      expect(row.num_turns).toBe(3);
    }
    const dump = JSON.parse(readFileSync(join(dir, "debug-0.json"), "utf8"));
    const turns = dump.groups[0].samples[0].turns;
    expect(turns.map((turn: { transition: string }) => turn.transition)).toEqual([
      "append",
      "drift",
      "drift",
    ]);
    expect(turns[1].toleratedEdits).toEqual(["reasoning_dropped@messages[1].reasoning_content"]);
    expect(turns[2].toleratedEdits).toEqual([
      "reasoning_dropped@messages[1].reasoning_content",
      "reasoning_dropped@messages[3].reasoning_content",
    ]);
    // The forest section (read by `relax view`): every session, its 3 + 3 nodes, the exported leaf.
    const forest = dump.groups[0].sessions[0].forest;
    expect(forest.nodes.map((node: { kind: string }) => node.kind)).toEqual([
      "observation",
      "response",
      "observation",
      "response",
      "observation",
      "response",
    ]);
    expect(forest.nodes.at(-1).exported_as).toEqual([null]);
    expect(forest.turns[2].tolerated_edits).toEqual(turns[2].toleratedEdits);
  }, 120_000);

  it("should run the eval dataset after training with RELAX_ROLLOUT_MODE=eval, report the --eval-function-path metrics and keep eval rows out of the training file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-e2e-eval-"));
    const config = echoAgentConfig(dir, {
      promptData: fixture("data.jsonl"),
      evalPromptData: fixture("data.jsonl"),
      evalFunctionPath: `${fixture("eval-function.mjs")}#grade`,
      nSamplesPerPrompt: 2,
      nSamplesPerEvalPrompt: 1,
      rolloutBatchSize: 1,
    });
    let printed = "";
    const stdout = new Writable({
      write(chunk, _encoding, callback) {
        printed += String(chunk);
        callback();
      },
    });
    const run = await runRollout(config, { ...quiet, stdout });
    // The eval function graded the 3 eval rows (prompts a, b solved; c failed), as slime logs its output.
    const graded = {
      "eval/data_graded": 2 / 3,
      "eval/data_graded-truncated_ratio": 0,
      "eval/data/graded_rows": 3,
      "eval/data/graded_turns": 3,
      "eval/data/saw_relax_metrics": 1,
    };
    expect(run.evals[0]!.functionMetrics).toEqual(graded);
    expect(run.evalSteps[0]!.metrics).toMatchObject(graded);
    expect(printed).toMatch(/\| eval\/data_graded +\| 0\.667 \(eval function, data, rollout 1\) +\|/);
    expect(printed).toMatch(/\| eval\/data\/graded_turns +\| 3\.000 \(eval function, data, rollout 1\) +\|/);
    expect(run.steps[0]!.rows.map((row) => row.metadata.rollout_mode)).toEqual(["train", "train"]);
    expect(run.evalSteps).toHaveLength(1);
    // One PATH names the dataset after its file stem; the eval after the last step (0) is rollout 1.
    expect(run.evals.map((item) => [item.dataset, item.step.rolloutId])).toEqual([["data", 1]]);
    expect(
      Object.keys(run.evalSteps[0]!.metrics).every(
        (key) => key.startsWith("eval/data/") || key.startsWith("eval/data_graded"),
      ),
    ).toBe(true);
    const evalRows = run.evalSteps[0]!.rows;
    expect(evalRows).toHaveLength(3);
    expect(evalRows.map((row) => row.metadata.rollout_mode)).toEqual(["eval", "eval", "eval"]);
    expect(evalRows.every((row) => row.advantage === 0)).toBe(true);
    expect(await readRows(join(dir, "rows.jsonl"))).toHaveLength(2);
  }, 120_000);

  it("should terminate every agent and reject with RolloutInterruptedError when the run is interrupted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-e2e-interrupt-"));
    const before = engine.generates.length;
    const interrupt = new AbortController();
    const watcher = setInterval(() => {
      if (engine.generates.length >= before + 2) interrupt.abort();
    }, 20);
    const config = echoAgentConfig(dir, {
      promptData: fixture("hang.jsonl"),
      nSamplesPerPrompt: 2,
      rolloutBatchSize: 1,
    });
    await expect(runRollout(config, { ...quiet, signal: interrupt.signal })).rejects.toThrow(
      "rollout 0 interrupted; every agent process was terminated",
    );
    clearInterval(watcher);
    expect(leftoverAgentProcesses("g0-")).toEqual([]);
  }, 120_000);

  it("should drop a Group whose agent exits early, hangs past --agent-timeout or exports an unmatched record, keep running, count the drops and leave no process behind", async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-e2e-fail-"));
    const config = echoAgentConfig(dir, {
      promptData: fixture("failures.jsonl"),
      agentTimeout: 10,
      nSamplesPerPrompt: 2,
      rolloutBatchSize: 2,
      agenticConcurrency: 2,
    });
    const run = await runRollout(config, quiet);
    expect(run.summary.groupsExported).toBe(2);
    expect(run.summary.groupsDropped).toBe(3);
    expect(run.summary.dropReasons).toEqual({
      agent_exited_before_first_request: 1,
      agent_timeout: 1,
      unmatched_record: 1,
    });
    const rows = await readRows(join(dir, "rows.jsonl"));
    expect(rows).toHaveLength(4);
    expect(leftoverAgentProcesses("g0-")).toEqual([]);
  }, 120_000);
});
