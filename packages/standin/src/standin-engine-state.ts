import type { Socket } from "node:net";
import type { StandinCall, StandinEngineOptions } from "./standin-engine-types";
import { FaultInjector } from "./standin-faults";
import { StandinOutage } from "./standin-outage";
import { StandinScheduler } from "./standin-scheduler";
import { StandinSessions } from "./standin-sessions";

/**
 * What the stand-in engine's routes share: its options, the scheduler, the outage / stall switch, the
 * fault injector, the log of received calls and the open sockets (dropped by an outage).
 */
export interface StandinEngineState {
  options: StandinEngineOptions;
  /** `options.contextLength`, defaulted (32768). */
  contextLength: number;
  outage: StandinOutage;
  scheduler: StandinScheduler;
  faults: FaultInjector;
  /** Every request received, in order (`StandinEngine.calls`). */
  calls: StandinCall[];
  /** The connections open now. */
  sockets: Set<Socket>;
  /** SGLang's engine sessions (`/open_session`, `session_params`, `/close_session`). */
  sessions: StandinSessions;
}

/** The shared state of a new engine: a scheduler built from `options` (with their defaults), no calls yet. */
export function createStandinEngineState(options: StandinEngineOptions): StandinEngineState {
  const outage = new StandinOutage();
  const scheduler = new StandinScheduler({
    outage,
    tokenizer: options.tokenizer,
    policy: options.policy,
    seed: options.seed ?? 0,
    tokenLatencyMs: options.tokenLatencyMs ?? 0,
    queueLatencyMs: options.queueLatencyMs ?? 0,
    maxConcurrency: options.maxConcurrency ?? Number.POSITIVE_INFINITY,
    weightVersion: options.weightVersion ?? "default",
    defaultMaxNewTokens: options.defaultMaxNewTokens ?? 128,
    cacheCapacityTokens: options.cacheCapacityTokens ?? 4_000_000,
    continuationCapacity: options.continuationCapacity ?? 1024,
  });
  return {
    options,
    contextLength: options.contextLength ?? 32768,
    outage,
    scheduler,
    faults: new FaultInjector(options.faults),
    calls: [],
    sockets: new Set(),
    sessions: new StandinSessions(),
  };
}

/**
 * Takes the engine down (`StandinEngine.startOutage`): whatever was in flight is lost with the server,
 * open connections are dropped and every request is aborted.
 */
export function startStandinOutage(
  state: StandinEngineState,
  outageOptions: Parameters<StandinOutage["startOutage"]>[0] = {},
): void {
  state.outage.startOutage(outageOptions);
  for (const socket of state.sockets) socket.destroy();
  state.scheduler.abort({ all: true, message: "Aborted (stand-in outage)" });
}
