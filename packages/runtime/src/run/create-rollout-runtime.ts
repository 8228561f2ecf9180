import {
  createAgentApi,
  createGatewayApp,
  EngineFaultHold,
  type EngineFaultView,
  encodeWorkers,
  type GateControl,
  GenerationGate,
  listenGateway,
  SessionNotFoundError,
  SessionRegistry,
  type SessionSpec,
  ShardPool,
} from "@relax/agent-api";
import type { ChatRenderer, TextTokenizer } from "@relax/chat";
import { createExportPipeline, type ExportPipeline } from "@relax/export";
import type { SandboxBackend } from "@relax/launcher";
import {
  ConfigError,
  checkBackendHealth,
  createEvalRunner,
  createLogger,
  createStepRunner,
  EngineHealth,
  type EvalDataset,
  type EvalRun,
  evalDueAfterStep,
  type LaunchAgent,
  loadEvalFunction,
  type PromptItem,
  RolloutController,
  RunReporter,
  type RuntimeEvalOptions,
  type RuntimeStepOptions,
  readPromptDataset,
  type ServedRun,
  type StepResult,
} from "@relax/rollout";
import type { SglangClient } from "@relax/sglang";
import type { Hono } from "hono";
import type { Logger } from "pino";
import { createAgentBackend } from "../agent/create-agent-backend";
import type { RolloutConfig } from "../config/rollout-config";
import { type Backend, type StandinStarter, startBackend } from "../engine/start-backend";
import { formatAgentCapacity } from "../plan/plan-agent-capacity";
import {
  agentApiSettings,
  planRolloutComponents,
  type RolloutComponents,
} from "../plan/plan-rollout-components";
import { loadTextStack } from "../text/load-text-stack";
import { AsyncDisposableStack } from "./async-disposable-stack";
import { createRunEvents } from "./create-run-events";
import { gatewayShardEntry } from "./gateway-shard-entry";

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
  /**
   * Starts the SGLang-compatible stand-in engine (not a model) for a run without `--sglang-url`: the
   * `relax` CLI and tests pass `{ start: startStandin }` of `@relax/standin`. Without it such a run fails
   * with a ConfigError naming `--sglang-url`.
   */
  standin?: StandinStarter;
}

/**
 * A started rollout: tokenizer and template loaded, export pipeline built, datasets read, the backend
 * (SGLang or the stand-in) healthy, the gateway listening. Owns all of it: `close()` (or
 * `await using`) stops the gateway, then the backend.
 */
export interface RolloutRuntime extends ServedRun, AsyncDisposable {
  /** Every component of the run and its settings (its `steps` and `output` are the {@link ServedRun}'s). */
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
  /** The eval datasets in the order they run (`--eval-prompt-data`); empty without one. */
  readonly evalDatasets: readonly EvalDataset[];
  /** The first eval dataset's prompts (empty without one); kept for callers of a single eval dataset. */
  readonly evalPrompts: readonly PromptItem[];
  readonly reporter: RunReporter;
  readonly controller: RolloutController;
  /**
   * The run's generation gate (one per runtime): every engine call passes it, and Groups pause their
   * agents' active-time budgets while it is closed. Open unless a trainer pauses it (`relax serve`).
   */
  readonly gate: GateControl;
  /**
   * The gateway shards (`--gateway-shards N > 1`): their state, pids and URLs; `undefined` when this
   * process serves the agents itself.
   */
  readonly shards: ShardPool | undefined;
  /** Engine outage handling: Groups wait for the engine's health; backend drops counted apart. */
  readonly engineHealth: EngineHealth;
  /**
   * Engine failures of in-flight turns, held and continued (docs/contract.md#engine-failures); its
   * counters feed the summary and `relax serve` status. With `--gateway-shards N > 1` each shard holds
   * its own turns and this is their sum.
   */
  readonly engineFaults: EngineFaultView;
  /** Which isolation agents run under, in words (banner); `undefined` with an injected launcher. */
  readonly isolation?: string;
  /** Train prompts taken so far; prompt `cursor % prompts.length` comes next. Settable to resume a run. */
  cursor: number;
  /**
   * Runs one step: Groups over the prompts until `groups` have exported.
   * @throws RolloutStalledError when Groups keep dropping; RolloutInterruptedError when a signal aborted.
   */
  runStep(options: RuntimeStepOptions): Promise<StepResult>;
  /**
   * Runs eval datasets one after another (never two at once, never with a train step), each as one eval
   * step of all its prompts with `RELAX_ROLLOUT_MODE=eval`; eval rows never train.
   * @throws UnknownEvalDatasetError (before any session starts) when `datasets` names an unknown dataset
   *   or one twice; RolloutStalledError / RolloutInterruptedError as {@link RolloutRuntime.runStep}.
   */
  runEvals(options: RuntimeEvalOptions): Promise<EvalRun[]>;
  /**
   * Whether the eval datasets are due after train step `rolloutId` by `--eval-interval`:
   * `(rolloutId + 1) % interval === 0`. False without an interval or without eval datasets. (The end of
   * a run and the eval before the first step are the caller's; see `components.steps.evalSchedule`.)
   */
  evalDue(rolloutId: number): boolean;
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

/** What {@link startRuntime} works with; every resource it opens goes on `stack`. */
interface RuntimeStart {
  config: RolloutConfig;
  components: RolloutComponents;
  cwd: string;
  logger: Logger;
  io: RuntimeIo;
  stack: AsyncDisposableStack;
}

/**
 * Starts the engine backend (owned by `start.stack`) and waits until it answers: fails before any agent
 * starts when it does not (a dead `--sglang-url` would otherwise surface only as agents failing their
 * requests); progress is logged while it waits.
 */
async function startHealthyBackend(
  start: RuntimeStart,
  text: Awaited<ReturnType<typeof loadTextStack>>,
): Promise<Awaited<ReturnType<typeof startBackend>>> {
  const { components, cwd, logger, stack, io } = start;
  const { tokenizer, vision } = text;
  const backend = stack.adopt(
    await startBackend({
      ...components.backend,
      tokenizer,
      baseDir: cwd,
      ...(vision ? { vision } : {}),
      ...(io.standin !== undefined ? { standin: io.standin } : {}),
    }),
    (item) => item.close(),
  );
  await checkBackendHealth({
    probe: () => backend.client.health(),
    target: components.backend.sglangUrls.join(", ") || "the stand-in engine",
    announce: components.backend.sglangUrls.length > 0,
    log: (message, fields) => logger.info(fields, message),
  });
  return backend;
}

async function startRuntime(start: RuntimeStart): Promise<RolloutRuntime> {
  const { config, components, cwd, logger, io, stack } = start;
  const shardCount = components.gateway.shards;
  // One process: large observations render and tokenise in its worker threads (encode-offload.ts). A
  // sharded run's controller only restores forests and decodes: the shards hold the encode workers.
  const text = stack.adopt(await loadTextStack(components, { offload: shardCount === 1 }), (item) =>
    item.close(),
  );
  const { tokenizer, renderer } = text;
  const decode = (ids: number[]) => tokenizer.decode(ids, { skipSpecialTokens: false });
  const exporter = await createExportPipeline({ config: components.export, baseDir: cwd, decode });
  logExportWarnings(exporter, logger);
  const evalFunction =
    components.evalFunction !== undefined ? await loadEvalFunction(components.evalFunction, cwd) : undefined;
  const { prompts, evalDatasets } = await readRolloutDatasets(config, components);

  const backend = await startHealthyBackend(start, text);
  const engineHealth = stack.adopt(createEngineHealth(config, backend.client, logger), (item) =>
    item.close(),
  );

  // Where agents run: sandbox, uid pool, inherited environment (docs/security.md). Injected launchers
  // (tests) bring their own.
  const agents =
    io.launchAgent === undefined
      ? await createAgentBackend(config, {
          agentCwd: components.group.agentCwd,
          logger,
          requiredSlots: components.capacity.required,
        })
      : undefined;
  if (agents !== undefined) stack.defer(() => agents.backend.dispose());

  // With --engine-sessions, a removed session's engine session is closed (best effort).
  const registry = new SessionRegistry({
    onRemove: (sessionId) => void backend.client.closeEngineSession(sessionId),
  });
  const reporter = io.reporter ?? new RunReporter({ progress: components.progress });
  logger.info(
    { ...components.capacity },
    `agent slots: ${formatAgentCapacity(components.capacity)} (docs/contract.md#external-capacity)`,
  );
  const events = createRunEvents({ logger, reporter, engineHealth, components });
  const serving = await startServing(start, { text, backend, registry, events });
  const { app, server, baseUrl, gate, shards, engineFaults } = serving;
  reporter.counters.engineFaults = engineFaults.counters;

  const controller = createController(
    start,
    { registry, renderer, baseUrl, gate, engineFaults, shards },
    { exporter, agentBackend: agents?.backend, reporter, engineHealth, decode },
  );
  serving.bindCurrentStep(() => controller.currentStep);

  const owned = stack.move();
  let closing: Promise<void> | undefined;
  // Resident Groups (carried, prelaunched) end before the gateway and the backend stop.
  const close = () =>
    (closing ??= controller
      .interruptAll()
      .then(
        () => undefined,
        (error: unknown) => logger.warn({ err: String(error) }, "interrupting resident Groups failed"),
      )
      .then(() => owned.disposeAsync()));
  const runStep = createStepRunner({ controller, components, prompts, evalDatasets });
  const runEvals = createEvalRunner(runStep, evalDatasets, logger, evalFunction);
  const evalDue = (rolloutId: number) =>
    evalDatasets.length > 0 && evalDueAfterStep(components.steps.evalSchedule, rolloutId);
  return {
    components,
    steps: components.steps,
    output: components.output,
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
    evalDatasets,
    evalPrompts: evalDatasets[0]?.prompts ?? [],
    reporter,
    controller,
    gate,
    shards,
    engineHealth,
    engineFaults,
    ...(agents !== undefined ? { isolation: agents.isolation } : {}),
    get cursor() {
      return controller.cursor;
    },
    set cursor(value: number) {
      controller.cursor = value;
    },
    runStep,
    runEvals,
    evalDue,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Logs the export pipeline's warnings: WARN, but "no --reward-key" at DEBUG. */
function logExportWarnings(exporter: ExportPipeline, logger: Logger): void {
  for (const warning of exporter.warnings) {
    // "no --reward-key" only matters for object rewards, which the run will report if they come.
    if (warning.path === "rewardKey") logger.debug({ path: warning.path }, warning.message);
    else logger.warn({ path: warning.path }, warning.message);
  }
}

/**
 * Reads the train dataset and every eval dataset (in configured order).
 *
 * @throws ConfigError when a dataset is empty; DatasetError as {@link readPromptDataset}.
 */
export async function readRolloutDatasets(
  config: Pick<RolloutConfig, "promptData">,
  components: Pick<RolloutComponents, "datasets">,
): Promise<{ prompts: PromptItem[]; evalDatasets: EvalDataset[] }> {
  const prompts = await readPromptDataset(components.datasets.train);
  if (prompts.length === 0) {
    throw new ConfigError({ message: `--prompt-data ${config.promptData}: the dataset is empty` });
  }
  const evalDatasets: EvalDataset[] = [];
  for (const { name, ...plan } of components.datasets.eval) {
    const datasetPrompts = await readPromptDataset(plan);
    if (datasetPrompts.length === 0) {
      throw new ConfigError({ message: `--eval-prompt-data ${name} ${plan.file}: the dataset is empty` });
    }
    evalDatasets.push({ name, prompts: datasetPrompts });
  }
  return { prompts, evalDatasets };
}

/** Engine outage handling with the `--engine-wait-*` backoff (seconds in the config, ms here). */
function createEngineHealth(config: RolloutConfig, client: SglangClient, logger: Logger): EngineHealth {
  return new EngineHealth({
    probe: () => client.health(),
    logger,
    backoff: {
      initialMs: config.engineWaitInitial * 1000,
      maxMs: config.engineWaitMax * 1000,
      maxOutageMs: config.engineOutageTimeout * 1000,
    },
  });
}

/** What serves agents: the app on the gateway's port and, sharded, the shard pool. */
interface Serving {
  app: Hono;
  server: { port: number };
  /** `RELAX_BASE_URL`: `http://<host>:<port><basePath>/`. */
  baseUrl: string;
  gate: GateControl;
  shards: ShardPool | undefined;
  /** Turns held through engine failures (the shards' sum when sharded). */
  engineFaults: EngineFaultView;
  /** Turns are stamped with the train step running: bound once the controller exists. */
  bindCurrentStep(currentStep: () => number | undefined): void;
}

/**
 * Builds the app (one process: the agent-facing API with its own gate; sharded: the controller's port,
 * which serves health and the trainer routes only), mounts `io.routes`, listens (before the shards
 * start, so that a busy --port fails at once) and, sharded, starts the shard pool.
 */
async function startServing(
  start: RuntimeStart,
  parts: {
    text: Awaited<ReturnType<typeof loadTextStack>>;
    backend: Backend;
    registry: SessionRegistry;
    events: ReturnType<typeof createRunEvents>;
  },
): Promise<Serving> {
  const { components, io, stack } = start;
  const { gateway } = components;
  const { backend, registry, events } = parts;
  let currentStep: () => number | undefined = () => undefined;
  let shards: ShardPool | undefined;
  let gate: GateControl | undefined;
  let engineFaults: EngineFaultView | undefined;
  let app: Hono;
  if (gateway.shards === 1) {
    const localGate = new GenerationGate({ engine: backend.client });
    gate = localGate;
    const { tokenizer, renderer, images, offload } = parts.text;
    // Engine failures of in-flight turns are held and continued (docs/contract.md#engine-failures).
    const faults = new EngineFaultHold({
      engine: backend.client,
      logger: start.logger,
      budget: components.engineFaults,
    });
    stack.defer(() => faults.close());
    engineFaults = faults;
    app = createAgentApi({
      faults,
      settings: agentApiSettings(components),
      registry,
      gate: localGate,
      engine: backend.client,
      tokenizer,
      renderer,
      ...(images !== undefined ? { images } : {}),
      ...(offload !== undefined ? { offload } : {}),
      currentStep: () => currentStep(),
      events,
      health: () => ({ backend: backend.kind }),
      ...(io.controlToken !== undefined ? { controlToken: io.controlToken } : {}),
    });
  } else {
    app = createControllerPortApp(components, { backend, registry, events, shards: () => shards }, io);
  }
  if (io.routes !== undefined) app.route("/", io.routes);
  // Listen before the shards start, so that a busy --port fails at once.
  const server = stack.use(await listenGateway({ app, host: gateway.host, port: gateway.port }));
  const baseUrl = `http://${gateway.host}:${server.port}${gateway.basePath}/`;
  if (gateway.shards > 1) {
    shards = await startShards(start, parts.text.renderer, backend, events);
    gate = shards.gate;
    engineFaults = shards.engineFaults;
  }
  return {
    app,
    server,
    baseUrl,
    gate: gate!,
    shards,
    engineFaults: engineFaults!,
    bindCurrentStep: (bound) => {
      currentStep = bound;
    },
  };
}

/**
 * Sharded: agents talk to their shard; this process keeps Groups, capacity, export and the trainer API.
 * This port serves /health (with each shard's state) and the trainer's routes; a session credential
 * presented here is unknown (404): each agent's RELAX_BASE_URL is its shard.
 */
function createControllerPortApp(
  components: RolloutComponents,
  parts: {
    backend: Backend;
    registry: SessionRegistry;
    events: ReturnType<typeof createRunEvents>;
    /** The pool, once started (health asks it at request time). */
    shards: () => ShardPool | undefined;
  },
  io: RuntimeIo,
): Hono {
  const { gateway } = components;
  const { backend, registry, events } = parts;
  return createGatewayApp({
    registry: new SessionRegistry(),
    generate: () => Promise.reject(new SessionNotFoundError({ sessionId: "(unknown)" })),
    basePath: gateway.basePath,
    heartbeatMs: gateway.heartbeatMs,
    maxRequestBytes: gateway.maxRequestBytes,
    maxJsonDepth: gateway.maxJsonDepth,
    requestLimits: gateway.requestLimits,
    refusalBackoffMaxMs: gateway.refusalBackoffMaxMs,
    // Sessions and states as the controller sees them; forests live on the shards.
    health: () => {
      const shards = parts.shards();
      const { forestNodes: _placeholders, ...sessions } = registry.snapshot();
      return {
        ...(shards?.degraded ? { status: "degraded" } : {}),
        backend: backend.kind,
        ...sessions,
        shards: shards?.status() ?? [],
      };
    },
    onRefusal: (event) => events.refusal(event),
    sessionsElsewhere:
      "this is the controller's port of a sharded gateway (--gateway-shards): it serves no session; send model requests to your RELAX_BASE_URL (your gateway shard)",
    ...(io.controlToken !== undefined ? { controlToken: io.controlToken } : {}),
  });
}

/** Starts the `--gateway-shards` pool (the encode workers split over the shards); closed with the stack. */
async function startShards(
  start: RuntimeStart,
  renderer: ChatRenderer,
  backend: Backend,
  events: ReturnType<typeof createRunEvents>,
): Promise<ShardPool> {
  const { config, components, cwd, logger, io, stack } = start;
  const { gateway } = components;
  const shardCount = gateway.shards;
  const pool = stack.adopt(
    await ShardPool.start({
      size: shardCount,
      entry: gatewayShardEntry(),
      config: config as unknown as Record<string, unknown>,
      cwd,
      engine: backend.endpoint,
      host: gateway.host,
      basePath: gateway.basePath,
      renderer,
      events,
      logger,
      encodeWorkers: Math.max(1, Math.ceil((encodeWorkers() - 1) / shardCount)),
      unresponsiveMs: gateway.shardTimeoutMs,
      ...(io.controlToken !== undefined ? { controlToken: io.controlToken } : {}),
    }),
    (item) => item.close(),
  );
  logger.info(
    { shards: shardCount },
    `gateway: ${shardCount} shards (Groups placed by consistent hashing of their id; docs/architecture.md#gateway-shards)`,
  );
  return pool;
}

/**
 * The gateway a run's Group sessions are served by: their registry and renderer, the URL agents get, the
 * gate and engine-fault view their budgets follow, and the shards when the gateway is sharded.
 */
interface GroupGateway {
  registry: SessionRegistry;
  renderer: ChatRenderer;
  baseUrl: string;
  gate: GateControl;
  engineFaults: EngineFaultView;
  shards: ShardPool | undefined;
}

/** What the controller exports, runs agents with and reports to. */
interface ControllerServices {
  exporter: ExportPipeline;
  agentBackend: SandboxBackend | undefined;
  reporter: RunReporter;
  engineHealth: EngineHealth;
  decode: (ids: number[]) => string;
}

/** The rollout controller over the run's Group context, reporter and cross-step settings. */
function createController(
  start: RuntimeStart,
  gateway: GroupGateway,
  parts: ControllerServices,
): RolloutController {
  const { components, logger, io } = start;
  const { crossStep } = components;
  const { shards } = gateway;
  const { agentBackend, reporter } = parts;
  const groupSize = components.steps.train.groupSize;
  return new RolloutController({
    group: {
      registry: gateway.registry,
      renderer: gateway.renderer,
      exporter: parts.exporter,
      baseUrl: gateway.baseUrl,
      gate: gateway.gate,
      engineFaults: gateway.engineFaults,
      ...(shards !== undefined ? { createSession: (spec: SessionSpec) => shards.createSession(spec) } : {}),
      ...components.group,
      ...(agentBackend !== undefined ? { agentBackend } : {}),
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
    engineHealth: parts.engineHealth,
    decode: parts.decode,
    logPassrate: components.logPassrate,
    crossStep: {
      prelaunch: crossStep.prelaunch,
      partialRollout: crossStep.partialRollout,
      fullyAsync: crossStep.fullyAsync,
    },
    ...(components.saveDebugRolloutData !== undefined
      ? { saveDebugRolloutData: components.saveDebugRolloutData }
      : {}),
    ...(shards !== undefined ? { onCurrentStep: (step: number | undefined) => shards.setStep(step) } : {}),
  });
}
