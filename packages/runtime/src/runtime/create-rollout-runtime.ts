import type { ChatRenderer, TextTokenizer } from "@relax/chat";
import { createExportPipeline, type ExportPipeline } from "@relax/export";
import type { SglangClient } from "@relax/sglang";
import type { Hono } from "hono";
import type { Logger } from "pino";
import { ConfigError } from "../config/load-config";
import type { RolloutConfig } from "../config/rollout-config";
import { EngineHealth } from "../controller/engine-health";
import { type PromptItem, readPromptDataset } from "../controller/prompt-dataset";
import { type GroupLaunchInfo, RolloutController, type StepResult } from "../controller/rollout-controller";
import type { GroupResult, LaunchAgent, SessionSpec } from "../controller/run-group";
import { BackendUnavailableError } from "../engine/backend-unavailable-error";
import { type Backend, startBackend } from "../engine/start-backend";
import { createLogger } from "../report/create-logger";
import { createRunEvents } from "../report/create-run-events";
import { RunReporter } from "../report/run-reporter";
import { createAgentApi } from "../service/create-agent-api";
import { createGatewayApp } from "../service/create-gateway-app";
import { encodeWorkers } from "../service/encode-offload";
import { SessionNotFoundError } from "../service/gateway-errors";
import { type GateControl, GenerationGate } from "../service/generation-gate";
import { SessionRegistry } from "../service/session-registry";
import { ShardPool } from "../shard/shard-pool";
import { AsyncDisposableStack } from "./async-disposable-stack";
import { createAgentBackend } from "./create-agent-backend";
import { evalDueAfterStep } from "./eval-schedule";
import { listenGateway } from "./listen-gateway";
import { loadTextStack } from "./load-text-stack";
import { formatAgentCapacity } from "./plan-agent-capacity";
import { planRolloutComponents, type RolloutComponents } from "./plan-rollout-components";
import { UnknownEvalDatasetError } from "./unknown-eval-dataset-error";

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
   * Eval only: the eval dataset to run (its prompts, unless `prompts` is given, and its `eval/<name>/`
   * metric prefix). @default the first eval dataset
   */
  dataset?: string;
  /**
   * Groups that must export for the step to close.
   * @default train: `--rollout-batch-size`; eval: one per eval prompt
   */
  groups?: number;
  /** Resident Groups at most. @default `--agentic-concurrency` (eval: `--agentic-eval-concurrency`) */
  concurrency?: number;
  /** Called with each Group's result (its rows in `result.export.rows`) as soon as the Group finishes. */
  onGroup?: (result: GroupResult, info: GroupLaunchInfo) => void;
  /** Train only: prompt positions to run first (a step resumed from the run journal). */
  resumeCursors?: readonly number[];
  /** Group index of the step's first Group. @default 0 */
  firstGroupIndex?: number;
  /** Aborting it interrupts this step only. */
  signal?: AbortSignal;
  /**
   * Train: another train step follows (`--agentic-prelaunch` starts its Groups early only then).
   * @default rolloutId + 1 < --num-rollout
   */
  nextStepFollows?: boolean;
}

/** One eval dataset as read at start: its name and its prompts. */
export interface EvalDataset {
  /** The `--eval-prompt-data` name (the `eval/<name>/` metric prefix). */
  name: string;
  prompts: readonly PromptItem[];
}

/** Options of {@link RolloutRuntime.runEvals}. */
export interface RuntimeEvalOptions {
  /** The rollout id of the eval steps (in Group ids, logs and debug dumps). */
  rolloutId: number;
  /** Names of the eval datasets to run, in this order. @default every eval dataset, in configured order */
  datasets?: readonly string[];
  /** Called with each Group's result as soon as it finishes, with the name of its dataset. */
  onGroup?: (dataset: string, result: GroupResult) => void;
  /**
   * Called as soon as each dataset's eval step has finished, before the next dataset starts. A throwing
   * callback is logged and does not stop the remaining datasets.
   */
  onDataset?: (run: EvalRun) => void;
  /** Aborting it interrupts the running eval step; the datasets after it do not run. */
  signal?: AbortSignal;
}

/** What one dataset of {@link RolloutRuntime.runEvals} produced. */
export interface EvalRun {
  dataset: string;
  /** The eval step (its `metrics` keys prefixed `eval/<dataset>/`, its rows with advantage 0). */
  step: StepResult;
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
   *   or one twice; RolloutStalledError / RolloutInterruptedError as {@link runStep}.
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

async function startRuntime(options: {
  config: RolloutConfig;
  components: RolloutComponents;
  cwd: string;
  logger: Logger;
  io: RuntimeIo;
  stack: AsyncDisposableStack;
}): Promise<RolloutRuntime> {
  const { config, components, cwd, logger, io, stack } = options;

  const shardCount = components.gateway.shards;
  // One process: large observations render and tokenise in its worker threads (encode-offload.ts). A
  // sharded run's controller only restores forests and decodes: the shards hold the encode workers.
  const text = stack.adopt(await loadTextStack(components, { offload: shardCount === 1 }), (item) =>
    item.close(),
  );
  const { tokenizer, renderer, images, vision, offload } = text;
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
  const evalDatasets: EvalDataset[] = [];
  for (const { name, ...plan } of components.datasets.eval) {
    const datasetPrompts = await readPromptDataset(plan);
    if (datasetPrompts.length === 0) {
      throw new ConfigError({ message: `--eval-prompt-data ${name} ${plan.file}: the dataset is empty` });
    }
    evalDatasets.push({ name, prompts: datasetPrompts });
  }
  const evalPrompts = evalDatasets[0]?.prompts ?? [];

  const backend = stack.adopt(
    await startBackend({ ...components.backend, tokenizer, baseDir: cwd, ...(vision ? { vision } : {}) }),
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

  const engineHealth = stack.adopt(
    new EngineHealth({
      probe: () => backend.client.health(),
      logger,
      backoff: {
        initialMs: config.engineWaitInitial * 1000,
        maxMs: config.engineWaitMax * 1000,
        maxOutageMs: config.engineOutageTimeout * 1000,
      },
    }),
    (item) => item.close(),
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

  const registry = new SessionRegistry();
  const reporter = io.reporter ?? new RunReporter({ progress: components.progress });
  const { crossStep, gateway } = components;
  logger.info(
    { ...components.capacity },
    `agent slots: ${formatAgentCapacity(components.capacity)} (docs/contract.md#external-capacity)`,
  );
  const events = createRunEvents({ logger, reporter, engineHealth, components });
  // Bound below, once the controller exists: turns are stamped with the train step running.
  let currentStep: () => number | undefined = () => undefined;
  let gate!: GateControl;
  let app: Hono;
  let shards: ShardPool | undefined;
  if (shardCount === 1) {
    const localGate = new GenerationGate({ engine: backend.client });
    gate = localGate;
    app = createAgentApi({
      components,
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
    // Sharded: agents talk to their shard; this process keeps Groups, capacity, export and the trainer API.
    // This port serves /health (with each shard's state) and the trainer's routes; a session credential
    // presented here is unknown (404): each agent's RELAX_BASE_URL is its shard.
    app = createGatewayApp({
      registry: new SessionRegistry(),
      generate: () => Promise.reject(new SessionNotFoundError({ sessionId: "(unknown)" })),
      basePath: gateway.basePath,
      heartbeatMs: gateway.heartbeatMs,
      maxRequestBytes: gateway.maxRequestBytes,
      // Sessions and states as the controller sees them; forests live on the shards.
      health: () => {
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
  if (io.routes !== undefined) app.route("/", io.routes);
  // Listen before the shards start, so that a busy --port fails at once.
  const server = stack.use(await listenGateway({ app, host: gateway.host, port: gateway.port }));
  const baseUrl = `http://${gateway.host}:${server.port}${gateway.basePath}/`;
  if (shardCount > 1) {
    const pool = stack.adopt(
      await ShardPool.start({
        size: shardCount,
        config,
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
    shards = pool;
    gate = pool.gate;
    logger.info(
      { shards: shardCount },
      `gateway: ${shardCount} shards (Groups placed by consistent hashing of their id; docs/architecture.md#gateway-shards)`,
    );
  }

  const groupSize = components.steps.train.groupSize;
  const controller = new RolloutController({
    group: {
      registry,
      renderer,
      exporter,
      baseUrl,
      gate,
      ...(shards !== undefined ? { createSession: (spec: SessionSpec) => shards.createSession(spec) } : {}),
      ...components.group,
      ...(agents !== undefined ? { agentBackend: agents.backend } : {}),
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
    engineHealth,
    decode,
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

  currentStep = () => controller.currentStep;

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
  const runStep = (options: RuntimeStepOptions): Promise<StepResult> => {
    const train = options.mode === "train";
    let dataset: EvalDataset | undefined;
    if (!train) {
      dataset =
        options.dataset !== undefined
          ? evalDatasets.find((item) => item.name === options.dataset)
          : evalDatasets[0];
      if (options.dataset !== undefined && dataset === undefined) {
        return Promise.reject(
          new UnknownEvalDatasetError({
            names: [options.dataset],
            known: evalDatasets.map((item) => item.name),
          }),
        );
      }
    }
    const stepPrompts = options.prompts ?? (train ? prompts : (dataset?.prompts ?? []));
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
      ...(train
        ? {
            // The over-sampling surplus of the configuration, over the step's own batch.
            overSampling:
              (options.groups ?? plan.groupsPerStep ?? stepPrompts.length) +
              crossStep.overSampling -
              components.steps.train.groupsPerStep,
            nextStepFollows: options.nextStepFollows ?? options.rolloutId + 1 < components.steps.numRollout,
          }
        : {}),
      ...(dataset !== undefined ? { dataset: dataset.name } : {}),
      ...(options.onGroup !== undefined ? { onGroup: options.onGroup } : {}),
      ...(options.resumeCursors !== undefined ? { resumeCursors: options.resumeCursors } : {}),
      ...(options.firstGroupIndex !== undefined ? { firstGroupIndex: options.firstGroupIndex } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
  };
  const runEvals = async (options: RuntimeEvalOptions): Promise<EvalRun[]> => {
    const known = evalDatasets.map((item) => item.name);
    const names = options.datasets ?? known;
    const unknown = names.filter((name) => !known.includes(name));
    if (unknown.length > 0) throw new UnknownEvalDatasetError({ names: unknown, known });
    const repeated = names.filter((name, index) => names.indexOf(name) !== index);
    if (repeated.length > 0) throw new UnknownEvalDatasetError({ names: repeated, known, repeated: true });
    const runs: EvalRun[] = [];
    for (const name of names) {
      const { onGroup } = options;
      const step = await runStep({
        rolloutId: options.rolloutId,
        mode: "eval",
        dataset: name,
        ...(onGroup !== undefined ? { onGroup: (result: GroupResult) => onGroup(name, result) } : {}),
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
      });
      const run = { dataset: name, step };
      runs.push(run);
      try {
        options.onDataset?.(run);
      } catch (error) {
        // Like onGroup: a throwing callback is logged and does not stop the remaining datasets.
        logger.warn(
          { rollout: options.rolloutId, dataset: name, err: String(error) },
          "onDataset callback threw",
        );
      }
    }
    return runs;
  };
  const evalDue = (rolloutId: number) =>
    evalDatasets.length > 0 && evalDueAfterStep(components.steps.evalSchedule, rolloutId);
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
    evalDatasets,
    evalPrompts,
    reporter,
    controller,
    gate,
    shards,
    engineHealth,
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
