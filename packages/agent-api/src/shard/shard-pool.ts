import { type ChildProcess, fork } from "node:child_process";
import type { TokenRenderer } from "@relax/chat";
import { SessionForest } from "@relax/forest";
import type { Logger } from "pino";
import { EngineFaultTotals } from "../engine-fault/engine-fault-totals";
import { BackendUnavailableError } from "../errors/backend-unavailable-error";
import type { GateCounts, GenerationGateState } from "../gate/generation-gate";
import type { AgentApiEvents } from "../http/create-agent-api";
import { GatewaySession } from "../session/gateway-session";
import type { SessionSpec } from "../session/session-spec";
import type { TurnEvent } from "../turn/create-turn-runner";
import { rendezvousShard } from "./rendezvous";
import {
  type ControllerMessage,
  createIpcChannel,
  type EngineSpec,
  type SessionFinal,
  type SessionStateReport,
  type ShardChannel,
  type ShardMessage,
  shardMessageSchema,
} from "./shard-protocol";
import { ShardedGate, type ShardPauseOutcome } from "./sharded-gate";

/** A shard process's entry module: its file and the Node flags it needs (`--import tsx` for a `.ts` source). */
export interface ShardEntry {
  file: string;
  execArgv: string[];
}

/** Options of {@link ShardPool.start}. */
export interface ShardPoolOptions {
  /** Shard processes (`--gateway-shards`). */
  size: number;
  /**
   * The shard process's entry module and the Node flags it runs under: a module that calls
   * {@link runGatewayShard} (`@relax/runtime` passes its `shard-main`).
   */
  entry: ShardEntry;
  /**
   * What each shard builds its gateway from, sent in its `init` message as is (`@relax/runtime` sends the
   * run's validated configuration).
   */
  config: Record<string, unknown>;
  /** Directory relative paths resolve against. */
  cwd: string;
  /** How shards reach the engine (the backend's URLs). */
  engine: EngineSpec;
  /** Host the shards listen on (their port is picked free). */
  host: string;
  /** Base path of the agent API (`--base-path`). */
  basePath: string;
  /** Restores the shards' forests at session close (the same template as the shards'). */
  renderer: TokenRenderer;
  /** Where the shards' turn, warning and refusal events go (the run's handlers). */
  events: AgentApiEvents;
  logger: Logger;
  /** Encode worker threads per shard. @default 1 */
  encodeWorkers?: number;
  /** The trainer's control token, refused as a session credential on every shard. */
  controlToken?: string;
  /**
   * Restarts of one shard within {@link ShardPoolOptions.restartWindowMs} after which it is left down (new
   * Groups are placed on the other shards). @default 10
   */
  maxRestarts?: number;
  /** The window of `maxRestarts`, in ms. @default 600000 (10 minutes) */
  restartWindowMs?: number;
  /**
   * A shard that sends nothing (not even its 1 s heartbeat) for this long is declared hung: it is killed,
   * its Groups drop as `shard_failed`, and it is restarted (`--gateway-shard-timeout`). In ms. @default 30000
   */
  unresponsiveMs?: number;
}

/** One shard as `/health` and the start log show it. */
export interface ShardStatus {
  index: number;
  /**
   * `starting` (first start), `ready`, `restarting` (after a crash), `down` (out of restarts: new Groups
   * go to the other shards).
   */
  state: "starting" | "ready" | "restarting" | "down";
  pid?: number;
  /** `RELAX_BASE_URL` of this shard's agents. */
  url?: string;
  /** Sessions open on it. */
  sessions: number;
  restarts: number;
}

const ZERO_COUNTS: GateCounts = { generating: 0, held: 0, abortedPartials: 0, bypassing: 0 };

/** What the watchdog reads of a shard. */
export interface WatchedShard {
  state: ShardStatus["state"];
  /** Set once the watchdog declared it hung. */
  hungMs: number | undefined;
  /** When its last message arrived (ms, `performance.now()`). */
  lastHeard: number;
}

/**
 * One watchdog tick's decision (times in ms, `performance.now()`): `stalled` when this tick comes more
 * than 3 ticks after the last one — this process's own event loop stalled, so the shards' messages are
 * queued unread, not missing (every shard then counts as heard now); else the indices of the ready shards
 * not yet declared hung that have been silent for more than `unresponsiveMs`.
 */
export function watchdogDecision(
  shards: readonly WatchedShard[],
  now: number,
  lastTick: number,
  options: { tickMs: number; unresponsiveMs: number },
): { kind: "stalled" } | { kind: "check"; hung: number[] } {
  if (now - lastTick > 3 * options.tickMs) return { kind: "stalled" };
  const hung: number[] = [];
  for (const [index, shard] of shards.entries()) {
    if (shard.state !== "ready" || shard.hungMs !== undefined) continue;
    if (now - shard.lastHeard <= options.unresponsiveMs) continue;
    hung.push(index);
  }
  return { kind: "check", hung };
}

/**
 * Whether a shard that exited may restart: drops from `restartTimes` (in place, oldest first) the
 * restarts older than `windowMs` before `now`, then allows a restart while fewer than `maxRestarts` remain.
 */
export function mayRestart(
  restartTimes: number[],
  now: number,
  options: { windowMs: number; maxRestarts: number },
): boolean {
  while (restartTimes.length > 0 && now - restartTimes[0]! > options.windowMs) restartTimes.shift();
  return restartTimes.length < options.maxRestarts;
}

/**
 * The shard a Group's sessions are placed on: rendezvous hashing of its id over the shards that are not
 * `down`; `-1` when every shard is down.
 */
export function placeGroup(groupId: string, states: readonly ShardStatus["state"][]): number {
  return rendezvousShard(groupId, states.length, (index) => states[index] !== "down");
}

/** A shard's `/health` entry: state, pid and URL when known, open sessions, restarts. */
export function shardStatusOf(shard: {
  index: number;
  state: ShardStatus["state"];
  child?: { pid?: number | undefined } | undefined;
  url?: string | undefined;
  sessions: { size: number };
  restarts: number;
}): ShardStatus {
  return {
    index: shard.index,
    state: shard.state,
    ...(shard.child?.pid !== undefined ? { pid: shard.child.pid } : {}),
    ...(shard.url !== undefined ? { url: shard.url } : {}),
    sessions: shard.sessions.size,
    restarts: shard.restarts,
  };
}

/** A running shard process and the controller's bookkeeping of it. */
class Shard {
  readonly index: number;
  state: ShardStatus["state"] = "starting";
  restarts = 0;
  /** When each recent restart happened (ms, `performance.now()`), for the restart window. */
  readonly restartTimes: number[] = [];
  /** When the last message of the running process arrived (ms, `performance.now()`). */
  lastHeard = 0;
  /** Set when the watchdog killed the process for silence: its exit is reported as hung. */
  hungMs: number | undefined;
  child: ChildProcess | undefined;
  channel: ShardChannel<ControllerMessage, ShardMessage> | undefined;
  url: string | undefined;
  ready!: Promise<void>;
  gateState: GenerationGateState = "open";
  counts: GateCounts = ZERO_COUNTS;
  readonly sessions = new Map<string, ShardSession>();
  readonly opens = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  readonly pauses = new Map<number, (outcome: ShardPauseOutcome) => void>();

  constructor(index: number) {
    this.index = index;
  }

  send(message: ControllerMessage): void {
    this.channel?.send(message);
  }
}

/**
 * A sharded gateway's shard processes (`--gateway-shards N`), owned by the controller: it starts them,
 * places each Group's sessions on one shard by rendezvous hashing of the Group id (so a shard that dies
 * takes only the Groups it served), mirrors their counters, collects each session's final forest at
 * close, fans the generation gate out ({@link ShardedGate}) and restarts a shard that dies, after
 * telling every Group it served that its sessions are lost (the Groups drop as `shard_failed`).
 *
 * Agents talk to their shard directly (`RELAX_BASE_URL` is the shard's URL; no proxy hop). The
 * controller and the shards exchange only the typed messages of `shard-protocol.ts`.
 */
export class ShardPool {
  readonly gate: ShardedGate;
  /** Every shard's engine-failure hold, summed (docs/contract.md#engine-failures). */
  readonly engineFaults: EngineFaultTotals;
  readonly #options: ShardPoolOptions;
  readonly #shards: Shard[];
  #step: number | null = null;
  #pauseSeq = 0;
  #closing = false;
  readonly #watchdog: NodeJS.Timeout;

  private constructor(options: ShardPoolOptions) {
    this.#options = options;
    this.#shards = Array.from({ length: options.size }, (_, index) => new Shard(index));
    this.engineFaults = new EngineFaultTotals(options.logger);
    this.gate = new ShardedGate({
      reports: () =>
        this.#shards
          .filter((shard) => shard.state === "ready")
          .map((shard) => ({ state: shard.gateState, counts: shard.counts })),
      pauseAll: (timeoutMs) => Promise.all(this.#shards.map((shard) => this.#pauseShard(shard, timeoutMs))),
      resumeAll: (weightVersion) => {
        for (const shard of this.#shards) {
          shard.send({ type: "resume", ...(weightVersion !== undefined ? { weightVersion } : {}) });
        }
      },
      setWeightVersionAll: (version) => {
        for (const shard of this.#shards) shard.send({ type: "weight_version", version });
      },
    });
    const unresponsiveMs = options.unresponsiveMs ?? 30_000;
    const tickMs = Math.min(1_000, unresponsiveMs);
    let lastTick = performance.now();
    this.#watchdog = setInterval(() => {
      const now = performance.now();
      const decision = watchdogDecision(this.#shards, now, lastTick, { tickMs, unresponsiveMs });
      lastTick = now;
      if (decision.kind === "stalled") {
        for (const shard of this.#shards) shard.lastHeard = Math.max(shard.lastHeard, now);
        return;
      }
      for (const index of decision.hung) {
        const shard = this.#shards[index]!;
        shard.hungMs = now - shard.lastHeard;
        options.logger.warn(
          { shard: shard.index, pid: shard.child?.pid, silent_s: Math.round(shard.hungMs / 1000) },
          `AGENTIC gateway shard ${shard.index} sent nothing for ${Math.round(shard.hungMs / 1000)} s (--gateway-shard-timeout): declared hung, killing it`,
        );
        shard.child?.kill("SIGKILL");
      }
    }, tickMs);
    this.#watchdog.unref();
  }

  /**
   * Starts every shard and resolves when all listen.
   * @throws Error naming the shard when one fails to start (the others are stopped).
   */
  static async start(options: ShardPoolOptions): Promise<ShardPool> {
    const pool = new ShardPool(options);
    for (const shard of pool.#shards) pool.#spawn(shard);
    try {
      await Promise.all(pool.#shards.map((shard) => shard.ready));
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  /** Shards in this pool. */
  get size(): number {
    return this.#shards.length;
  }

  /** Each shard's state, pid, URL, open sessions and restarts. */
  status(): ShardStatus[] {
    return this.#shards.map((shard) => shardStatusOf(shard));
  }

  /**
   * The shard a Group's sessions are placed on: rendezvous hashing of its id over the shards that are not
   * down (a down shard's Groups go to their next-best shard; no other Group moves). `-1` when every shard
   * is down.
   */
  shardOf(groupId: string): number {
    return placeGroup(
      groupId,
      this.#shards.map((shard) => shard.state),
    );
  }

  /** Whether a shard is down or restarting (`/health` then says `degraded`). */
  get degraded(): boolean {
    return this.#shards.some((shard) => shard.state !== "ready");
  }

  /** Tells every shard the train step now running (turns are stamped with it). */
  setStep(step: number | undefined): void {
    const value = step ?? null;
    if (value === this.#step) return;
    this.#step = value;
    for (const shard of this.#shards) shard.send({ type: "step", step: value });
  }

  /**
   * The controller's copy of a new session, opened on its Group's shard (see `GroupContext.createSession`):
   * `ready` resolves once the shard registered it, `baseUrl` is the shard's URL.
   */
  createSession(spec: SessionSpec): GatewaySession {
    const index = this.shardOf(spec.groupId);
    const shard = this.#shards[index];
    if (shard === undefined) {
      const session = new ShardSession(spec, { renderer: this.#options.renderer, send: () => {} });
      session.start(
        Promise.reject(
          new Error(`every gateway shard is down (out of restarts); see the shard warnings above`),
        ),
      );
      return session;
    }
    const session = new ShardSession(spec, {
      renderer: this.#options.renderer,
      send: (message) => shard.send(message),
    });
    shard.sessions.set(spec.id, session);
    session.start(
      (async () => {
        await shard.ready;
        if (session.state === "closed") return false;
        session.baseUrl = shard.url;
        const opened = new Promise<void>((resolve, reject) => shard.opens.set(spec.id, { resolve, reject }));
        shard.send({
          type: "open",
          id: spec.id,
          credential: spec.credential,
          groupId: spec.groupId,
          mode: spec.mode,
          forest: spec.forest as Record<string, unknown>,
          ...(spec.samplingSeedBase !== undefined ? { samplingSeedBase: spec.samplingSeedBase } : {}),
        });
        session.markSent();
        await opened;
        return true;
      })(),
    );
    return session;
  }

  /** Stops every shard (their open sessions are closed there) and waits for them to exit. */
  async close(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#watchdog);
    await Promise.all(
      this.#shards.map(async (shard) => {
        const child = shard.child;
        if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        shard.send({ type: "shutdown" });
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  #spawn(shard: Shard): void {
    const { logger } = this.#options;
    const { entry } = this.#options;
    const child = fork(entry.file, [], {
      execArgv: entry.execArgv,
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: process.env,
      // Its own process group: a Ctrl-C (SIGINT to the terminal's foreground group) reaches the controller
      // only, which interrupts the run and shuts the shards down in order. A shard whose controller dies
      // exits when the IPC channel closes.
      detached: true,
    });
    // A write to a channel whose shard just died fails with EPIPE: the exit handler does the rest.
    child.on("error", (error) =>
      logger.debug({ shard: shard.index, err: String(error) }, "shard channel error"),
    );
    shard.child = child;
    shard.hungMs = undefined;
    shard.lastHeard = performance.now();
    shard.gateState = "open";
    shard.counts = ZERO_COUNTS;
    const channel = createIpcChannel<ControllerMessage, ShardMessage>(child, shardMessageSchema, (error) =>
      logger.warn({ shard: shard.index }, error.message),
    );
    shard.channel = channel;
    let settleReady!: { resolve: () => void; reject: (error: Error) => void };
    shard.ready = new Promise<void>((resolve, reject) => {
      settleReady = { resolve, reject };
    });
    shard.ready.catch(() => undefined);
    channel.onMessage((message) => {
      shard.lastHeard = performance.now();
      if (message.type === "heartbeat") return;
      if (message.type === "ready") {
        shard.url = `http://${this.#options.host}:${message.port}${this.#options.basePath}/`;
        shard.state = "ready";
        logger.info(
          { shard: shard.index, pid: child.pid, url: shard.url, restarts: shard.restarts },
          `gateway shard ${shard.index} listening at ${shard.url}`,
        );
        settleReady.resolve();
        return;
      }
      if (message.type === "init_failed") {
        settleReady.reject(new Error(`gateway shard ${shard.index} failed to start: ${message.message}`));
        return;
      }
      this.#receive(shard, message);
    });
    child.once("exit", (code, signal) => {
      channel.close();
      const how =
        shard.hungMs !== undefined
          ? `hung: nothing received for ${Math.round(shard.hungMs / 1000)} s, killed`
          : signal !== null
            ? `signal ${signal}`
            : `code ${code}`;
      shard.child = undefined;
      shard.url = undefined;
      settleReady.reject(new Error(`gateway shard ${shard.index} exited (${how}) before it listened`));
      this.#onExit(shard, child.pid, how);
    });
    const gate = this.gate;
    channel.send({
      type: "init",
      shard: shard.index,
      config: this.#options.config,
      cwd: this.#options.cwd,
      engine: this.#options.engine,
      encodeWorkers: this.#options.encodeWorkers ?? 1,
      // One process's pool may start 3 spare workers (each loads the tokenizer again): split over the shards.
      encodeMaxWorkers: (this.#options.encodeWorkers ?? 1) + Math.ceil(3 / this.#shards.length),
      gate: {
        paused: gate.state !== "open",
        ...(gate.weightVersion !== undefined ? { weightVersion: gate.weightVersion } : {}),
      },
      step: this.#step,
      ...(this.#options.controlToken !== undefined ? { controlToken: this.#options.controlToken } : {}),
    });
  }

  #receive(shard: Shard, message: ShardMessage): void {
    const { events } = this.#options;
    switch (message.type) {
      case "opened":
        shard.opens.get(message.id)?.resolve();
        shard.opens.delete(message.id);
        return;
      case "open_failed":
        shard.opens.get(message.id)?.reject(new Error(message.message));
        shard.opens.delete(message.id);
        return;
      case "state":
        for (const report of message.sessions) shard.sessions.get(report.id)?.applyState(report);
        return;
      case "closed":
        shard.sessions.get(message.id)?.applyFinal(message.final);
        shard.sessions.delete(message.id);
        return;
      case "gate":
        shard.gateState = message.state;
        shard.counts = message.counts;
        this.gate.noteReports();
        return;
      case "paused":
        shard.pauses.get(message.seq)?.({ kind: "paused", result: message.result });
        shard.pauses.delete(message.seq);
        return;
      case "pause_failed":
        shard.pauses.get(message.seq)?.({
          kind: message.kind,
          message: message.message,
          generating: message.generating,
        });
        shard.pauses.delete(message.seq);
        return;
      case "turn": {
        const event = message.event as unknown as TurnEvent;
        if (message.error !== undefined) {
          const { name, message: text, outage } = message.error;
          // The marker the engine-health check reads does not cross processes: an outage is rebuilt as one.
          event.error = outage
            ? new BackendUnavailableError({ message: text })
            : Object.assign(new Error(text), { name });
        }
        events.turn(event);
        return;
      }
      case "notice":
        events.notice({ code: message.code, message: message.message });
        return;
      case "engine_faults":
        this.engineFaults.update(
          shard.index,
          { held: message.held, counters: message.counters },
          message.fault === undefined
            ? undefined
            : {
                kind: message.fault.kind,
                message: message.fault.message,
                ...(message.fault.worker !== undefined ? { worker: message.fault.worker } : {}),
                ...(message.fault.sessionId !== undefined ? { sessionId: message.fault.sessionId } : {}),
              },
        );
        return;
      case "engine_fault_log":
        this.#options.logger.warn({ shard: shard.index, ...message.fields }, message.message);
        return;
      case "warning":
        events.warning(message.warning, {
          protocol: message.protocol,
          ...(message.session !== undefined ? { session: message.session } : {}),
        });
        return;
      case "refusal": {
        const event = message.event as unknown as Parameters<AgentApiEvents["refusal"]>[0];
        const session = event.sessionId !== undefined ? shard.sessions.get(event.sessionId) : undefined;
        if (session !== undefined) {
          session.lastRefusal = { status: event.status, path: event.path, message: event.message };
        }
        events.refusal(event);
        return;
      }
      case "ready":
      case "init_failed":
      case "heartbeat":
        return;
    }
  }

  #pauseShard(shard: Shard, timeoutMs: number | undefined): Promise<ShardPauseOutcome> {
    if (shard.state !== "ready") return Promise.resolve({ kind: "gone" });
    const seq = ++this.#pauseSeq;
    return new Promise<ShardPauseOutcome>((resolve) => {
      shard.pauses.set(seq, resolve);
      shard.send({ type: "pause", seq, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
    });
  }

  #onExit(shard: Shard, pid: number | undefined, how: string): void {
    this.engineFaults.forget(shard.index);
    for (const resolve of shard.pauses.values()) resolve({ kind: "gone" });
    shard.pauses.clear();
    const lost = [...shard.sessions.values()];
    shard.sessions.clear();
    if (this.#closing) {
      for (const session of lost) session.markLost("the gateway is shutting down");
      return;
    }
    const message = `gateway shard ${shard.index} (pid ${pid ?? "?"}) exited (${how})`;
    const groups = new Set(lost.map((session) => session.groupId));
    const now = performance.now();
    const windowMs = this.#options.restartWindowMs ?? 600_000;
    const restart = mayRestart(shard.restartTimes, now, {
      windowMs,
      maxRestarts: this.#options.maxRestarts ?? 10,
    });
    this.#options.logger.warn(
      { shard: shard.index, pid, groups: groups.size, sessions: lost.length, restarts: shard.restarts },
      `AGENTIC ${message}: its ${groups.size} Group(s) are dropped (shard_failed); ${restart ? "restarting it" : `it stays down (${shard.restartTimes.length} restarts in ${Math.round(windowMs / 60_000)} min); new Groups go to the other shards`}`,
    );
    for (const open of shard.opens.values()) open.reject(new Error(message));
    shard.opens.clear();
    for (const session of lost) session.markLost(message);
    this.gate.noteReports();
    if (!restart) {
      shard.state = "down";
      shard.url = undefined;
      shard.ready = Promise.reject(new Error(`${message} and is down (out of restarts)`));
      shard.ready.catch(() => undefined);
      return;
    }
    shard.restarts++;
    shard.restartTimes.push(now);
    shard.state = "restarting";
    this.#spawn(shard);
  }
}

/**
 * The controller's copy of a session served by a shard: counters mirrored from the shard, the lease and
 * the close sent to it, the final forest adopted at close ({@link GatewaySession.settled}).
 */
class ShardSession extends GatewaySession {
  readonly #renderer: TokenRenderer;
  readonly #send: (message: ControllerMessage) => void;
  #remote: SessionStateReport;
  #ready: Promise<void> = Promise.resolve();
  #sent = false;
  #final = false;
  #settle!: () => void;
  readonly #settled: Promise<void>;
  readonly #lostListeners: Array<(message: string) => void> = [];
  #lostMessage: string | undefined;

  constructor(
    spec: SessionSpec,
    link: { renderer: TokenRenderer; send: (message: ControllerMessage) => void },
  ) {
    super({
      id: spec.id,
      credential: spec.credential,
      groupId: spec.groupId,
      mode: spec.mode,
      // A placeholder until the close: the shard's forest replaces it (applyFinal).
      forest: new SessionForest({ ...spec.forest, renderer: link.renderer }),
      ...(spec.samplingSeedBase !== undefined ? { samplingSeedBase: spec.samplingSeedBase } : {}),
    });
    this.#renderer = link.renderer;
    this.#send = link.send;
    this.#remote = { id: spec.id, requests: 0, inflight: 0, generating: 0, abortCount: 0, protected: false };
    this.#settled = new Promise<void>((resolve) => {
      this.#settle = resolve;
    });
  }

  /** Starts the open on the shard (`opening` resolves true once registered, false when closed first). */
  start(opening: Promise<boolean>): void {
    this.#ready = opening.then(() => undefined);
    this.#ready.catch(() => undefined);
  }

  /** The open message went out: a close must now be sent (and its final state awaited). */
  markSent(): void {
    this.#sent = true;
  }

  override get ready(): Promise<void> {
    return this.#ready;
  }

  override get settled(): Promise<void> {
    return this.#settled;
  }

  override get requests(): number {
    return this.#remote.requests;
  }

  override get inflight(): number {
    return this.#remote.inflight;
  }

  override get generating(): number {
    return this.#remote.generating;
  }

  override get abortCount(): number {
    return this.#remote.abortCount;
  }

  override get protected(): boolean {
    return this.#remote.protected;
  }

  override onLost(listener: (message: string) => void): void {
    if (this.#lostMessage !== undefined) listener(this.#lostMessage);
    else this.#lostListeners.push(listener);
  }

  override lease(): void {
    const before = this.state;
    super.lease();
    if (before === "prepare" && this.#sent) this.#send({ type: "lease", id: this.id });
  }

  override close(reason = "session closed"): void {
    if (this.state === "closed") return;
    super.close(reason);
    if (this.#sent && !this.#final && this.#lostMessage === undefined) {
      this.#send({ type: "close", id: this.id, reason });
    } else this.#settle();
  }

  /** A counter report from the shard. */
  applyState(report: SessionStateReport): void {
    const first = this.#remote.requests === 0 && report.requests > 0;
    this.#remote = report;
    if (first) this.noteFirstRequest();
  }

  /** The shard's final state of the closed session: its forests and counters replace the placeholders. */
  applyFinal(final: SessionFinal): void {
    this.#final = true;
    this.forest = SessionForest.fromSnapshot(final.forest, { renderer: this.#renderer });
    for (const [name, snapshot] of final.sideForests) {
      this.sideForests.set(name, SessionForest.fromSnapshot(snapshot, { renderer: this.#renderer }));
    }
    for (const [name, count] of final.requestClasses) this.requestClasses.set(name, count);
    Object.assign(this.stats, final.stats);
    if (final.lastRefusal !== undefined) this.lastRefusal = final.lastRefusal;
    this.#settle();
  }

  /** The shard serving this session died: its Group is told, nothing more will come. */
  markLost(message: string): void {
    if (this.#lostMessage !== undefined) return;
    this.#lostMessage = message;
    for (const listener of this.#lostListeners.splice(0)) listener(message);
    this.#settle();
  }
}
