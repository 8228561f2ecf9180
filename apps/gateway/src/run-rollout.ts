import { readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { serve } from "@hono/node-server";
import { createChatRenderer, hasMarker, loadTokenizer, RelaxError } from "@relax/chat";
import { createExportPipeline, type TrainingRow } from "@relax/export";
import type { Logger } from "pino";
import { resolveModuleSpec } from "./config/resolve-module-spec";
import { resolveTokenizerPath } from "./config/resolve-tokenizer-path";
import type { RolloutConfig } from "./config/rollout-config";
import { readPromptDataset } from "./controller/prompt-dataset";
import { RolloutController, type StepResult } from "./controller/rollout-controller";
import { startBackend } from "./engine/start-backend";
import { createLogger, formatAgenticEvent } from "./report/create-logger";
import { formatSummary, type RunSummary, summarizeRun } from "./report/format-summary";
import { RunReporter } from "./report/run-reporter";
import { createGatewayApp } from "./service/create-gateway-app";
import { createTurnRunner } from "./service/create-turn-runner";
import { SessionRegistry } from "./service/session-registry";

const backendUnavailableErrorSymbol = Symbol.for("relax.error.BackendUnavailableError");

/** The inference backend did not answer its health check at start-up. */
export class BackendUnavailableError extends RelaxError {
  readonly [backendUnavailableErrorSymbol] = true;

  constructor({ message, cause }: { message: string; cause?: unknown }) {
    super({ name: "BackendUnavailableError", message, cause });
  }

  /** True for any `BackendUnavailableError`, from any copy of this package. */
  static override isInstance(error: unknown): error is BackendUnavailableError {
    return hasMarker(error, "relax.error.BackendUnavailableError");
  }
}

/** Where a run writes its human-facing output. */
export interface RunIo {
  /** Summary table and banner. @default process.stdout */
  stdout?: NodeJS.WritableStream;
  logger?: Logger;
  /** Aborting it interrupts the run: agents are terminated, servers closed, `RolloutInterruptedError` thrown. */
  signal?: AbortSignal;
}

/** What {@link runRollout} returns. */
export interface RolloutRun {
  summary: RunSummary;
  steps: StepResult[];
  evalSteps: StepResult[];
  rows: TrainingRow[];
  /** The rows file written (with `{rollout_id}` of the last step replaced). */
  output: string;
}

/**
 * Runs `relax rollout`: loads the tokenizer and chat template, connects to SGLang or starts the built-in
 * stand-in engine, serves the gateway on loopback, runs `numRollout` steps of Groups over the dataset,
 * writes training rows (JSONL) and prints a summary. Everything it started is stopped before it returns.
 */
export async function runRollout(config: RolloutConfig, io: RunIo = {}): Promise<RolloutRun> {
  const stdout = io.stdout ?? process.stdout;
  const logger = io.logger ?? createLogger({ level: config.logLevel });
  const started = performance.now();
  const cwd = process.cwd();
  const agentCwd = resolve(config.agentCwd ?? cwd);

  const tokenizer = await loadTokenizer(resolveTokenizerPath(config.tokenizer));
  const chatTemplate = config.chatTemplatePath
    ? await readFile(resolve(config.chatTemplatePath), "utf8")
    : undefined;
  const renderer = createChatRenderer({ tokenizer, ...(chatTemplate !== undefined ? { chatTemplate } : {}) });
  const decode = (ids: number[]) => tokenizer.decode(ids, { skipSpecialTokens: false });
  const exporter = await createExportPipeline({
    config: {
      nSamplesPerPrompt: config.nSamplesPerPrompt,
      nSamplesPerEvalPrompt: config.nSamplesPerEvalPrompt,
      advantageEstimator: config.advantageEstimator,
      grpoStdNormalization: config.grpoStdNormalization,
      agentWritesReward: config.agentWritesReward,
      groupRm: config.groupRm,
      multiContext: config.agenticMultiContext,
      useDynamicBatchSize: config.useDynamicBatchSize,
      logPassrate: config.logPassrate,
      chatTemplateKwargs: config.applyChatTemplateKwargs,
      ...(config.maxTokensPerGpu !== undefined ? { maxTokensPerGpu: config.maxTokensPerGpu } : {}),
      ...(config.rewardKey !== undefined ? { rewardKey: config.rewardKey } : {}),
      ...(config.customRmPath !== undefined ? { customRm: resolveModuleSpec(config.customRmPath, cwd) } : {}),
      ...(config.agenticCustomAdvantagePath !== undefined
        ? { customAdvantage: resolveModuleSpec(config.agenticCustomAdvantagePath, cwd) }
        : {}),
      ...(config.saveDebugRolloutData !== undefined
        ? { saveDebugRolloutData: config.saveDebugRolloutData }
        : {}),
    },
    baseDir: cwd,
    decode,
  });
  for (const warning of exporter.warnings) {
    // "no --reward-key" only matters for object rewards, which the run will report if they come.
    if (warning.path === "rewardKey") logger.debug({ path: warning.path }, warning.message);
    else logger.warn({ path: warning.path }, warning.message);
  }

  const prompts = await readPromptDataset({
    file: resolve(config.promptData),
    inputKey: config.inputKey,
    ...(config.metadataKey !== undefined ? { metadataKey: config.metadataKey } : {}),
    ...(config.multimodalKeys !== undefined ? { multimodalKeys: config.multimodalKeys } : {}),
  });
  if (prompts.length === 0) throw new Error(`--prompt-data ${config.promptData}: the dataset is empty`);
  const evalPrompts = config.evalPromptData
    ? await readPromptDataset({
        file: resolve(config.evalPromptData),
        inputKey: config.inputKey,
        ...(config.metadataKey !== undefined ? { metadataKey: config.metadataKey } : {}),
      })
    : [];

  const backend = await startBackend({
    sglangUrls: config.sglangUrl,
    ...(config.enginePolicy !== undefined
      ? { enginePolicy: resolveModuleSpec(config.enginePolicy, cwd) }
      : {}),
    tokenizer,
    tokenizerName: config.tokenizer,
    // The forest lets prompt + completion reach --rollout-max-context-len, while SGLang refuses
    // input + max_new_tokens >= context_length: the stand-in gets one token more. A real server needs a
    // --context-length above --rollout-max-context-len too (see the README).
    contextLength: config.rolloutMaxContextLen + 1,
    seed: config.rolloutSeed,
    baseDir: cwd,
  });
  // Fail before any agent starts when the backend does not answer (a dead --sglang-url would otherwise
  // surface only as agents failing their requests).
  const unhealthy = (await backend.client.health()).filter((server) => !server.ok);
  if (unhealthy.length > 0) {
    await backend.close();
    throw new BackendUnavailableError({
      message: `the inference backend is not healthy: ${unhealthy
        .map((server) => `${server.url} (${server.error ?? `HTTP ${server.status}`})`)
        .join(", ")}; check --sglang-url`,
    });
  }
  const registry = new SessionRegistry();
  const reporter = new RunReporter({ progress: config.progress });
  const generate = createTurnRunner({
    registry,
    engine: backend.client,
    tokenizer,
    renderer,
    sampling: {
      temperature: config.rolloutTemperature,
      topP: config.rolloutTopP,
      topK: config.rolloutTopK,
      maxResponseLen: config.rolloutMaxResponseLen,
    },
    defaultTemplateKwargs: config.applyChatTemplateKwargs,
    ...(config.agenticToolCallParser !== undefined ? { toolCallParser: config.agenticToolCallParser } : {}),
    ...(config.agenticReasoningParser !== undefined
      ? { reasoningParser: config.agenticReasoningParser }
      : {}),
    onTurn: (event) => {
      reporter.turnFinished(event);
      if (event.error !== undefined) {
        logger.debug({ session: event.sessionId, err: String(event.error) }, "turn failed");
      }
    },
  });
  const app = createGatewayApp({
    registry,
    generate,
    basePath: config.basePath,
    heartbeatMs: config.sseHeartbeatSeconds * 1000,
    health: () => ({ backend: backend.kind }),
    onWarning: (warning, context) =>
      logger.debug({ protocol: context.protocol, session: context.sessionId, ...warning }, "request warning"),
  });
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host });
  await new Promise<void>((resolvePromise, reject) => {
    if (server.listening) resolvePromise();
    server.once("listening", () => resolvePromise());
    server.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://${config.host}:${port}${config.basePath}/`;

  stdout.write(
    [
      "Relax agentic rollout",
      `  gateway   ${baseUrl}`,
      `  backend   ${backend.description}`,
      backend.kind === "standin"
        ? "            NOTE: the stand-in engine replays a scripted policy through SGLang's wire format; it is not a model."
        : undefined,
      `  tokenizer ${config.tokenizer}`,
      `  agent     ${config.agentCommand}  (cwd ${agentCwd})`,
      `  dataset   ${config.promptData} (${prompts.length} prompts): ${config.numRollout} step(s) × ${config.rolloutBatchSize} groups × ${config.nSamplesPerPrompt} samples`,
      "",
    ]
      .filter((line) => line !== undefined)
      .join("\n"),
  );

  const controller = new RolloutController({
    group: {
      registry,
      renderer,
      exporter,
      baseUrl,
      agentCommand: config.agentCommand,
      agentCwd,
      agentEnv: config.agentEnv,
      agentTimeoutMs: config.agentTimeout * 1000,
      firstRequestTimeoutMs: config.agentFirstRequestTimeout * 1000,
      matchingPolicy: config.agenticMatchingPolicy,
      ...(config.rolloutDeterministicSeed ? { deterministicSeed: config.rolloutSeed } : {}),
      maxContextTokens: config.rolloutMaxContextLen,
      keepSessionDirs: config.keepSessionDirs,
      ...(config.sessionLogDir !== undefined ? { logDir: resolve(config.sessionLogDir) } : {}),
      ...(io.signal !== undefined ? { signal: io.signal } : {}),
      events: {
        sessionPrepared: () => reporter.sessionPrepared(),
        groupLeased: () => reporter.groupLeased(config.nSamplesPerPrompt),
        sessionFinished: () => reporter.sessionFinished(),
      },
    },
    logger,
    reporter,
    decode,
    logPassrate: config.logPassrate,
    ...(config.saveDebugRolloutData !== undefined
      ? { saveDebugRolloutData: config.saveDebugRolloutData }
      : {}),
  });

  const steps: StepResult[] = [];
  const evalSteps: StepResult[] = [];
  const output = resolve(config.output);
  try {
    for (let rolloutId = 0; rolloutId < config.numRollout; rolloutId++) {
      const step = await controller.runStep({
        rolloutId,
        prompts,
        groupsPerStep: config.rolloutBatchSize,
        groupSize: config.nSamplesPerPrompt,
        concurrency: config.agenticConcurrency ?? config.rolloutBatchSize,
        mode: "train",
        output: output.replaceAll("{rollout_id}", String(rolloutId)),
      });
      steps.push(step);
      logger.info(roundMetrics(step.metrics), formatAgenticEvent("metrics", { rollout: rolloutId }));
    }
    if (evalPrompts.length > 0) {
      const step = await controller.runStep({
        rolloutId: 0,
        prompts: evalPrompts,
        groupsPerStep: evalPrompts.length,
        groupSize: config.nSamplesPerEvalPrompt,
        concurrency: config.agenticEvalConcurrency ?? config.agenticConcurrency ?? config.rolloutBatchSize,
        mode: "eval",
      });
      evalSteps.push(step);
      logger.info({ ...roundMetrics(step.metrics) }, formatAgenticEvent("eval_metrics", {}));
    }
  } finally {
    await new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
    await backend.close();
  }

  const rows = steps.flatMap((step) => step.rows);
  const wallSeconds = (performance.now() - started) / 1000;
  const summary = summarizeRun({ rows, counters: reporter.counters, steps: steps.length, wallSeconds });
  const extra: Array<[string, string]> = [
    ["rows written to", output.replaceAll("{rollout_id}", String(steps.length - 1))],
  ];
  if (backend.kind === "standin") extra.push(["backend", "stand-in engine (scripted policy, not a model)"]);
  if (evalSteps.length > 0) {
    const evalRewards = evalSteps.flatMap((step) =>
      step.rows.flatMap((row) => (typeof row.reward === "number" ? [row.reward] : [])),
    );
    extra.push([
      "eval reward mean",
      evalRewards.length ? (evalRewards.reduce((a, b) => a + b, 0) / evalRewards.length).toFixed(3) : "n/a",
    ]);
  }
  stdout.write(`\n${formatSummary(summary, extra)}\n`);
  return { summary, steps, evalSteps, rows, output };
}

function roundMetrics(metrics: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(metrics).map(([key, value]) => [key, Number(value.toFixed(6))]));
}
