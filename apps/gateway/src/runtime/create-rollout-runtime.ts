import { readFile } from "node:fs/promises";
import { type ChatRenderer, createChatRenderer, loadTokenizer, type TextTokenizer } from "@relax/chat";
import { createExportPipeline, type ExportPipeline } from "@relax/export";
import type { SglangClient } from "@relax/sglang";
import type { Hono } from "hono";
import type { Logger } from "pino";
import { ConfigError } from "../config/load-config";
import { resolveTokenizerPath } from "../config/resolve-tokenizer-path";
import type { RolloutConfig } from "../config/rollout-config";
import { type PromptItem, readPromptDataset } from "../controller/prompt-dataset";
import { RolloutController, type StepResult } from "../controller/rollout-controller";
import type { GroupResult, LaunchAgent } from "../controller/run-group";
import { BackendUnavailableError } from "../engine/backend-unavailable-error";
import { type Backend, startBackend } from "../engine/start-backend";
import { createLogger } from "../report/create-logger";
import { RunReporter } from "../report/run-reporter";
import { createGatewayApp } from "../service/create-gateway-app";
import { createTurnRunner } from "../service/create-turn-runner";
import { GenerationGate } from "../service/generation-gate";
import { SessionRegistry } from "../service/session-registry";
import { AsyncDisposableStack } from "./async-disposable-stack";
import { listenGateway } from "./listen-gateway";
import { planRolloutComponents, type RolloutComponents } from "./plan-rollout-components";

/** What the runtime takes from its caller besides the configuration. */
export interface RuntimeIo {
  /** @default a pino logger at `config.logLevel` */
  logger?: Logger;
  /** Aborting it interrupts the running step: its agents are terminated, `RolloutInterruptedError` thrown. */
  signal?: AbortSignal;
  /** How agents start. @default launchAgentSession of `@relax/launcher` (one process per session) */
  launchAgent?: LaunchAgent;
  /** Progress and counters. @default a `RunReporter` with `config.progress` */
  reporter?: RunReporter;
  /** Directory relative paths resolve against. @default process.cwd() */
  cwd?: string;
  /**
   * Extra routes served on the gateway's port next to the agent-facing API (`relax serve` mounts the
   * trainer control app here). Mounted before the server listens; their paths must not fall under
   * `--base-path`.
   */
  routes?: Hono;
  /** A bearer token the agent-facing API refuses as a session credential (the control token). */
  controlToken?: string;
}

/** Options of {@link RolloutRuntime.runStep}. */
export interface RuntimeStepOptions {
  /** The step's rollout id (in Group ids, logs and debug dumps). */
  rolloutId: number;
  /** `train` continues the train dataset at {@link RolloutRuntime.cursor}; `eval` runs eval prompts. */
  mode: "train" | "eval";
  /** Prompts to use instead of the configured dataset (train: from the cursor, cycling; eval: from 0). */
  prompts?: readonly PromptItem[];
  /**
   * Groups that must export for the step to close.
   * @default train: `--rollout-batch-size`; eval: one per eval prompt
   */
  groups?: number;
  /** Resident Groups at most. @default `--agentic-concurrency` (eval: `--agentic-eval-concurrency`) */
  concurrency?: number;
  /** Called with each Group's result (its rows in `result.export.rows`) as soon as the Group finishes. */
  onGroup?: (result: GroupResult) => void;
  /** Aborting it interrupts this step only. */
  signal?: AbortSignal;
}

/**
 * A started rollout: tokenizer and template loaded, export pipeline built, datasets read, the backend
 * (SGLang or the stand-in) healthy, the gateway listening. Owns all of it: `close()` (or
 * `await using`) stops the gateway, then the backend.
 */
export interface RolloutRuntime extends AsyncDisposable {
  readonly components: RolloutComponents;
  /** `RELAX_BASE_URL` handed to agents: `http://<host>:<port><basePath>/`. */
  readonly baseUrl: string;
  /** The gateway's bound port. */
  readonly port: number;
  readonly app: Hono;
  readonly registry: SessionRegistry;
  readonly backend: Backend;
  /** The engine client (`backend.client`). */
  readonly engine: SglangClient;
  readonly tokenizer: TextTokenizer;
  readonly renderer: ChatRenderer;
  readonly exporter: ExportPipeline;
  readonly prompts: readonly PromptItem[];
  readonly evalPrompts: readonly PromptItem[];
  readonly reporter: RunReporter;
  readonly controller: RolloutController;
  /**
   * The run's generation gate (one per runtime): every engine call passes it, and Groups pause their
   * agents' active-time budgets while it is closed. Open unless a trainer pauses it (`relax serve`).
   */
  readonly gate: GenerationGate;
  /** Train prompts taken so far; prompt `cursor % prompts.length` comes next. Settable to resume a run. */
  cursor: number;
  /**
   * Runs one step: Groups over the prompts until `groups` have exported.
   * @throws RolloutStalledError when Groups keep dropping; RolloutInterruptedError when a signal aborted.
   */
  runStep(options: RuntimeStepOptions): Promise<StepResult>;
  /** Closes the gateway, then the backend. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts a rollout from a validated configuration (the composition root of `relax rollout`): maps it
 * with {@link planRolloutComponents}, then loads the tokenizer and chat template, builds the export
 * pipeline (logging its warnings), reads the datasets, starts the backend and checks its health, builds
 * the turn runner and gateway app and listens. Each resource opened goes on a disposable stack, so a
 * failure half-way (a dead `--sglang-url`, a busy `--port`) closes everything opened before it rethrows.
 *
 * @throws BackendUnavailableError when the backend fails its health check; DatasetError, TokenizerLoadError,
 *   FunctionLoadError, ExportConfigError or the listen error (`EADDRINUSE`) as they come.
 */
export async function createRolloutRuntime(
  config: RolloutConfig,
  io: RuntimeIo = {},
): Promise<RolloutRuntime> {
  const cwd = io.cwd ?? process.cwd();
  const components = planRolloutComponents(config, { cwd });
  const logger = io.logger ?? createLogger({ level: components.logLevel });
  const stack = new AsyncDisposableStack();
  try {
    return await startRuntime({ config, components, cwd, logger, io, stack });
  } catch (error) {
    // Close what was opened so far (gateway, backend), then report the start failure itself.
    await stack
      .disposeAsync()
      .catch((closeError: unknown) =>
        logger.warn({ err: String(closeError) }, "closing after a failed start failed"),
      );
    throw error;
  }
}

async function startRuntime(options: {
  config: RolloutConfig;
  components: RolloutComponents;
  cwd: string;
  logger: Logger;
  io: RuntimeIo;
  stack: AsyncDisposableStack;
}): Promise<RolloutRuntime> {
  const { config, components, cwd, logger, io, stack } = options;

  const tokenizer = await loadTokenizer(resolveTokenizerPath(components.tokenizer.source));
  const chatTemplatePath = components.tokenizer.chatTemplatePath;
  const chatTemplate = chatTemplatePath !== undefined ? await readFile(chatTemplatePath, "utf8") : undefined;
  const renderer = createChatRenderer({ tokenizer, ...(chatTemplate !== undefined ? { chatTemplate } : {}) });
  const decode = (ids: number[]) => tokenizer.decode(ids, { skipSpecialTokens: false });
  const exporter = await createExportPipeline({ config: components.export, baseDir: cwd, decode });
  for (const warning of exporter.warnings) {
    // "no --reward-key" only matters for object rewards, which the run will report if they come.
    if (warning.path === "rewardKey") logger.debug({ path: warning.path }, warning.message);
    else logger.warn({ path: warning.path }, warning.message);
  }

  const prompts = await readPromptDataset(components.datasets.train);
  if (prompts.length === 0) {
    throw new ConfigError({ message: `--prompt-data ${config.promptData}: the dataset is empty` });
  }
  const evalPrompts = components.datasets.eval ? await readPromptDataset(components.datasets.eval) : [];

  const backend = stack.adopt(
    await startBackend({ ...components.backend, tokenizer, baseDir: cwd }),
    (item) => item.close(),
  );
  // Fail before any agent starts when the backend does not answer (a dead --sglang-url would otherwise
  // surface only as agents failing their requests).
  const unhealthy = (await backend.client.health()).filter((server) => !server.ok);
  if (unhealthy.length > 0) {
    throw new BackendUnavailableError({
      message: `the inference backend is not healthy: ${unhealthy
        .map((server) => `${server.url} (${server.error ?? `HTTP ${server.status}`})`)
        .join(", ")}; check --sglang-url`,
    });
  }

  const registry = new SessionRegistry();
  const reporter = io.reporter ?? new RunReporter({ progress: components.progress });
  const gate = new GenerationGate({ engine: backend.client });
  const generate = createTurnRunner({
    gate,
    registry,
    engine: backend.client,
    tokenizer,
    renderer,
    ...components.turns,
    onTurn: (event) => {
      reporter.turnFinished(event);
      if (event.error !== undefined) {
        logger.debug({ session: event.sessionId, err: String(event.error) }, "turn failed");
      }
    },
  });
  const { gateway } = components;
  const app = createGatewayApp({
    registry,
    generate,
    basePath: gateway.basePath,
    heartbeatMs: gateway.heartbeatMs,
    health: () => ({ backend: backend.kind }),
    onWarning: (warning, context) =>
      logger.debug({ protocol: context.protocol, session: context.sessionId, ...warning }, "request warning"),
    ...(io.controlToken !== undefined ? { controlToken: io.controlToken } : {}),
  });
  if (io.routes !== undefined) app.route("/", io.routes);
  const server = stack.use(await listenGateway({ app, host: gateway.host, port: gateway.port }));
  const baseUrl = `http://${gateway.host}:${server.port}${gateway.basePath}/`;

  const groupSize = components.steps.train.groupSize;
  const controller = new RolloutController({
    group: {
      registry,
      renderer,
      exporter,
      baseUrl,
      gate,
      ...components.group,
      ...(io.signal !== undefined ? { signal: io.signal } : {}),
      ...(io.launchAgent !== undefined ? { launchAgent: io.launchAgent } : {}),
      events: {
        sessionPrepared: () => reporter.sessionPrepared(),
        groupLeased: () => reporter.groupLeased(groupSize),
        sessionFinished: () => reporter.sessionFinished(),
      },
    },
    logger,
    reporter,
    decode,
    logPassrate: components.logPassrate,
    ...(components.saveDebugRolloutData !== undefined
      ? { saveDebugRolloutData: components.saveDebugRolloutData }
      : {}),
  });

  const owned = stack.move();
  const close = () => owned.disposeAsync();
  return {
    components,
    baseUrl,
    port: server.port,
    app,
    registry,
    backend,
    engine: backend.client,
    tokenizer,
    renderer,
    exporter,
    prompts,
    evalPrompts,
    reporter,
    controller,
    gate,
    get cursor() {
      return controller.cursor;
    },
    set cursor(value: number) {
      controller.cursor = value;
    },
    runStep: (options) => {
      const train = options.mode === "train";
      const stepPrompts = options.prompts ?? (train ? prompts : evalPrompts);
      if (stepPrompts.length === 0) {
        return Promise.reject(
          new RangeError(`rollout ${options.rolloutId}: no ${options.mode} prompts (--eval-prompt-data)`),
        );
      }
      const plan = train ? components.steps.train : components.steps.eval;
      return controller.runStep({
        rolloutId: options.rolloutId,
        mode: options.mode,
        prompts: stepPrompts,
        groupsPerStep: options.groups ?? plan.groupsPerStep ?? stepPrompts.length,
        groupSize: plan.groupSize,
        concurrency: options.concurrency ?? plan.concurrency,
        ...(options.onGroup !== undefined ? { onGroup: options.onGroup } : {}),
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
      });
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
