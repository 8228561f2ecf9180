import type { ChatRenderer, ImageStore, TextTokenizer } from "@relax/chat";
import { createSglangClient } from "@relax/sglang";
import type { EncodeOffload } from "../encode/encode-offload";
import type { EngineFaultBudget } from "../engine-fault/engine-fault-hold";
import { EngineFaultHold } from "../engine-fault/engine-fault-hold";
import { GenerationGate } from "../gate/generation-gate";
import { type AgentApiSettings, createAgentApi } from "../http/create-agent-api";
import { listenGateway } from "../http/listen-gateway";
import { SessionRegistry } from "../session/session-registry";
import {
  type ControllerMessage,
  controllerMessageSchema,
  createIpcChannel,
  type ShardChannel,
  type ShardMessage,
} from "./shard-protocol";
import { forwardPause, ShardSessions, shardApiEvents } from "./shard-sessions";

/** The `init` message a shard gets from its controller (`ShardPool`). */
export type ShardInit = Extract<ControllerMessage, { type: "init" }>;

/** What a shard process serves with, built from its `init` message by the caller of {@link runGatewayShard}. */
export interface GatewayShardSetup {
  /** The agent-facing API's settings (the same in every shard and in a one-process gateway). */
  settings: AgentApiSettings;
  /** This shard's tokenizer, renderer, images and encode offload; `close()` stops its encode workers. */
  text: {
    tokenizer: TextTokenizer;
    renderer: ChatRenderer;
    images?: ImageStore;
    offload?: EncodeOffload;
    close(): Promise<void>;
  };
  /** Use SGLang's engine sessions on `/generate` (`--engine-sessions`). */
  engineSessions: boolean;
  /** The engine-failure budget of this shard's turns. */
  engineFaults: EngineFaultBudget;
  /** Host the shard listens on (its port is picked free). */
  host: string;
}

/**
 * The body of a gateway shard process (`--gateway-shards`): serves the agent-facing API for the sessions
 * its controller (`ShardPool`) opens on it, over the IPC channel of `shard-protocol.ts`. Call it once from
 * the shard entry module (`@relax/runtime`'s `shard-main`), with `build` turning the `init` message into
 * the shard's setup. The process exits when its controller goes away or sends `shutdown`.
 * See docs/architecture.md#gateway-shards.
 */
export function runGatewayShard(build: (init: ShardInit) => Promise<GatewayShardSetup>): void {
  const channel = createIpcChannel<ShardMessage, ControllerMessage>(
    process,
    controllerMessageSchema,
    (error) => process.stderr.write(`relax gateway shard: ${error.message}\n`),
  );
  // The controller is gone (it exited or closed the channel): nothing is left to serve.
  channel.onClose(() => process.exit(0));
  // A shard lives as long as its controller: a Ctrl-C (SIGINT to the whole foreground process group) or a
  // hang-up reaches the controller, which interrupts the run and then shuts its shards down in order. A
  // SIGTERM sent to the shard itself still ends it (the controller then drops its Groups and restarts it).
  process.on("SIGINT", () => {});
  process.on("SIGHUP", () => {});

  let started = false;
  let handlers: ((message: ControllerMessage) => void) | undefined;
  channel.onMessage((message) => {
    if (message.type === "init") {
      if (started) return;
      started = true;
      startShard(channel, build, message, (handle) => {
        handlers = handle;
      }).catch((error: unknown) => {
        channel.send({
          type: "init_failed",
          message: error instanceof Error ? error.message : String(error),
        });
        setTimeout(() => process.exit(1), 100).unref();
      });
      return;
    }
    handlers?.(message);
  });
}

/**
 * Builds a shard from its `init` message and serves: the engine client, gate, sessions and agent API, then
 * listens and reports `ready` and heartbeats. `onHandler` gets the handler of the controller's later
 * messages before the shard listens.
 */
async function startShard(
  channel: ShardChannel<ShardMessage, ControllerMessage>,
  build: (init: ShardInit) => Promise<GatewayShardSetup>,
  init: ShardInit,
  onHandler: (handle: (message: ControllerMessage) => void) => void,
): Promise<void> {
  const setup = await build(init);
  const { text, engineSessions } = setup;
  // `--engine-sessions`: a session's turns all run on this shard, so its engine session lives in this
  // shard's client (opened on its first turn, closed when the shard removes the session).
  const engine =
    "baseUrl" in init.engine
      ? createSglangClient({ baseUrl: init.engine.baseUrl, engineSessions })
      : createSglangClient({ workers: init.engine.workers, engineSessions });
  const gate = new GenerationGate({
    engine,
    ...(init.gate.weightVersion !== undefined ? { weightVersion: init.gate.weightVersion } : {}),
  });
  if (init.gate.paused) void gate.pause();
  let step: number | null = init.step;
  const send = (message: ShardMessage) => channel.send(message);
  const sessions = new ShardSessions({
    send,
    gate,
    registry: new SessionRegistry({ onRemove: (sessionId) => void engine.closeEngineSession(sessionId) }),
    renderer: text.renderer,
  });
  const app = createAgentApi({
    // Each shard holds its own turns through engine failures; the controller sums them (one episode, one
    // pair of WARN lines per outage) and logs the stalled-call lines.
    faults: new EngineFaultHold({
      engine,
      budget: setup.engineFaults,
      logEpisodes: false,
      logger: { warn: (fields, message) => channel.send({ type: "engine_fault_log", fields, message }) },
      onUpdate: ({ held, counters }, fault) =>
        channel.send({ type: "engine_faults", held, counters, ...(fault !== undefined ? { fault } : {}) }),
    }),
    settings: setup.settings,
    registry: sessions.options.registry,
    gate,
    engine,
    tokenizer: text.tokenizer,
    renderer: text.renderer,
    ...(text.images !== undefined ? { images: text.images } : {}),
    ...(text.offload !== undefined ? { offload: text.offload } : {}),
    currentStep: () => step ?? undefined,
    health: () => ({ shard: init.shard }),
    ...(init.controlToken !== undefined ? { controlToken: init.controlToken } : {}),
    events: shardApiEvents(send, () => sessions.flush()),
  });

  onHandler((message) => {
    switch (message.type) {
      case "open":
        try {
          sessions.open(message);
          channel.send({ type: "opened", id: message.id });
        } catch (error) {
          channel.send({ type: "open_failed", id: message.id, message: (error as Error).message });
        }
        return;
      case "lease":
        sessions.get(message.id)?.lease();
        return;
      case "close":
        sessions.close(message.id, message.reason);
        return;
      case "step":
        step = message.step;
        return;
      case "pause":
        forwardPause(gate, message, send);
        return;
      case "resume":
        gate.resume(message.weightVersion !== undefined ? { weightVersion: message.weightVersion } : {});
        return;
      case "weight_version":
        gate.setWeightVersion(message.version);
        return;
      case "shutdown":
        for (const id of sessions.ids()) sessions.close(id, "gateway shutting down");
        void server.close().finally(async () => {
          await text.close();
          process.exit(0);
        });
        return;
      case "init":
        return;
    }
  });

  const server = await listenGateway({ app, host: setup.host, port: 0 });
  channel.send({ type: "ready", port: server.port });
  // Liveness: a stalled event loop stops these, and the controller declares the shard hung.
  setInterval(() => channel.send({ type: "heartbeat" }), 1_000).unref();
}
