import { resolve } from "node:path";
import type { LaunchAgent } from "@relax/rollout";
import {
  CONTROL_BASE_PATH,
  ControlError,
  createControlApp,
  createLogger,
  createRolloutService,
  openRunDir,
  type RolloutService,
  type ServeService,
} from "@relax/rollout";
import type { RolloutConfig } from "@relax/runtime";
import { createRolloutRuntime, hashRolloutConfig, type RolloutRuntime } from "@relax/runtime";
import type { Hono } from "hono";
import type { Logger } from "pino";
import { standinStarter } from "../engine/standin-starter";
import { type ControlTokenSource, resolveControlToken } from "./resolve-control-token";

/** Options of {@link startServe}. */
export interface ServeIo {
  /** `--control-token`. @default `$RELAX_CONTROL_TOKEN`, else generated */
  controlToken?: string;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Aborting it interrupts the running step (its agents are terminated). */
  signal?: AbortSignal;
  /** How agents start. @default one `launchAgentSession` process per session */
  launchAgent?: LaunchAgent;
  /** @default process.cwd() */
  cwd?: string;
}

/** A started `relax serve`. */
export interface ServeHandle extends AsyncDisposable {
  runtime: RolloutRuntime;
  service: ServeService;
  /** `http://<host>:<port>/rollout/v1`. */
  controlUrl: string;
  token: string;
  tokenSource: ControlTokenSource;
  /**
   * Interrupts the running step (its agents are terminated; a held request ends), waits for it to end,
   * then closes the runtime. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Starts `relax serve`: opens the run directory (refusing a changed configuration unless
 * `runDirForce`), picks the control token, starts a rollout runtime whose server also serves the trainer
 * control app under `/rollout/v1` (the agent-facing API refuses the control token), and builds the
 * {@link createRolloutService | rollout service} continuing from the run directory's state.
 *
 * @throws ConfigError for a changed configuration or a bad token; whatever `createRolloutRuntime` throws.
 */
export async function startServe(config: RolloutConfig, io: ServeIo = {}): Promise<ServeHandle> {
  const cwd = io.cwd ?? process.cwd();
  const logger = io.logger ?? createLogger({ level: config.logLevel });
  const runDir = config.runDir !== undefined ? resolve(cwd, config.runDir) : undefined;
  const configHash = hashRolloutConfig(config);
  const saved =
    runDir !== undefined
      ? await openRunDir({ dir: runDir, configHash, force: config.runDirForce })
      : undefined;
  const { token, source } = await resolveControlToken({
    ...(io.controlToken !== undefined ? { flag: io.controlToken } : {}),
    ...(io.env !== undefined ? { env: io.env } : {}),
    ...(runDir !== undefined ? { runDir } : {}),
  });

  // The control app is mounted before the server listens; the service exists once the runtime does.
  let service: ServeService | undefined;
  const ready = (): RolloutService => {
    if (service === undefined)
      throw new ControlError({ code: "backend_unavailable", message: "relax serve is still starting" });
    return service;
  };
  const control: Hono = createControlApp({
    token,
    service: {
      status: () => ready().status(),
      health: async () => ready().health(),
      runStep: async (request, sink) => ready().runStep(request, sink),
      runEvals: async (request, sink) => ready().runEvals(request, sink),
      pause: async (request) => ready().pause(request),
      resume: async (request) => ready().resume(request),
      updateWeightsFromDisk: async (request) => ready().updateWeightsFromDisk(request),
      view: async () => (await ready().view?.()) ?? "",
      stepRows: async (request) => (service ?? (ready() as ServeService)).stepRows(request),
    },
  });
  // Closing interrupts a running step, like the caller's signal does.
  const closing = new AbortController();
  const signal = io.signal !== undefined ? AbortSignal.any([io.signal, closing.signal]) : closing.signal;
  const runtime = await createRolloutRuntime(config, {
    logger,
    standin: standinStarter,
    cwd,
    routes: control,
    controlToken: token,
    signal,
    ...(io.launchAgent !== undefined ? { launchAgent: io.launchAgent } : {}),
  });
  service = createRolloutService({
    runtime,
    configHash,
    logger,
    ...(runDir !== undefined ? { runDir } : {}),
    ...(saved !== undefined ? { resumeFrom: saved } : {}),
    runDirForce: config.runDirForce,
  });
  const host = runtime.components.gateway.host;
  const controlUrl = `http://${host.includes(":") ? `[${host}]` : host}:${runtime.port}${CONTROL_BASE_PATH}`;
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      closing.abort();
      await service!.idle();
      await runtime.close();
    })();
    return closed;
  };
  return { runtime, service, controlUrl, token, tokenSource: source, close, [Symbol.asyncDispose]: close };
}

/** The start-up lines of `relax serve` after the rollout banner: the control URL and the token's place. */
export function formatServeBanner(handle: ServeHandle, saved: { nextRolloutId: number }): string {
  const { tokenSource } = handle;
  const where =
    tokenSource.kind === "flag"
      ? "from --control-token"
      : tokenSource.kind === "env"
        ? "from $RELAX_CONTROL_TOKEN"
        : tokenSource.kind === "file"
          ? `${tokenSource.reused ? "reused from" : "generated, in"} ${tokenSource.path} (mode 0600)`
          : "generated, printed once on stderr";
  return [
    `  control   ${handle.controlUrl}  (Authorization: Bearer <control token>; token ${where})`,
    `  next step rollout_id ${saved.nextRolloutId}`,
    "",
  ].join("\n");
}
