// A gateway shard (`--gateway-shards`): one process serving the agent-facing API for the sessions its
// controller opens on it. Started by `ShardPool` with an IPC channel; everything it learns and reports
// goes through the typed messages of shard-protocol.ts. See docs/architecture.md#gateway-shards.
import { createSglangClient } from "@relax/sglang";
import type { RolloutConfig } from "../config/rollout-config";
import { listenGateway } from "../runtime/listen-gateway";
import { loadTextStack } from "../runtime/load-text-stack";
import { planRolloutComponents } from "../runtime/plan-rollout-components";
import { createAgentApi } from "../service/create-agent-api";
import { EngineFaultHold } from "../service/engine-fault-hold";
import { GenerationGate } from "../service/generation-gate";
import { SessionRegistry } from "../service/session-registry";
import {
  type ControllerMessage,
  controllerMessageSchema,
  createIpcChannel,
  type ShardMessage,
} from "./shard-protocol";
import { forwardPause, ShardSessions, shardApiEvents } from "./shard-sessions";

const channel = createIpcChannel<ShardMessage, ControllerMessage>(process, controllerMessageSchema, (error) =>
  process.stderr.write(`relax gateway shard: ${error.message}\n`),
);
// The controller is gone (it exited or closed the channel): nothing is left to serve.
channel.onClose(() => process.exit(0));
// A shard lives as long as its controller: a Ctrl-C (SIGINT to the whole foreground process group) or a
// hang-up reaches the controller, which interrupts the run and then shuts its shards down in order. A
// SIGTERM sent to the shard itself still ends it (the controller then drops its Groups and restarts it).
process.on("SIGINT", () => {});
process.on("SIGHUP", () => {});

let started = false;
channel.onMessage((message) => {
  if (message.type === "init") {
    if (started) return;
    started = true;
    start(message).catch((error: unknown) => {
      channel.send({ type: "init_failed", message: error instanceof Error ? error.message : String(error) });
      setTimeout(() => process.exit(1), 100).unref();
    });
    return;
  }
  handlers?.(message);
});

let handlers: ((message: ControllerMessage) => void) | undefined;

async function start(init: Extract<ControllerMessage, { type: "init" }>): Promise<void> {
  const config = init.config as RolloutConfig;
  const components = planRolloutComponents(config, { cwd: init.cwd });
  const text = await loadTextStack(components, {
    offload: true,
    workers: init.encodeWorkers,
    maxWorkers: Math.max(init.encodeWorkers, init.encodeMaxWorkers),
  });
  // `--engine-sessions`: a session's turns all run on this shard, so its engine session lives in this
  // shard's client (opened on its first turn, closed when the shard removes the session).
  const { engineSessions } = components.backend;
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
      budget: components.engineFaults,
      logEpisodes: false,
      logger: { warn: (fields, message) => channel.send({ type: "engine_fault_log", fields, message }) },
      onUpdate: ({ held, counters }, fault) =>
        channel.send({ type: "engine_faults", held, counters, ...(fault !== undefined ? { fault } : {}) }),
    }),
    components,
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

  handlers = (message) => {
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
  };

  const server = await listenGateway({ app, host: components.gateway.host, port: 0 });
  channel.send({ type: "ready", port: server.port });
  // Liveness: a stalled event loop stops these, and the controller declares the shard hung.
  setInterval(() => channel.send({ type: "heartbeat" }), 1_000).unref();
}
