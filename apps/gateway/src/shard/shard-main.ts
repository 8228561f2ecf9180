// A gateway shard (`--gateway-shards`): one process serving the agent-facing API for the sessions its
// controller opens on it. Started by `ShardPool` with an IPC channel; everything it learns and reports
// goes through the typed messages of shard-protocol.ts. See docs/architecture.md#gateway-shards.

import { SessionForest, type SessionForestOptions } from "@relax/forest";
import { createSglangClient } from "@relax/sglang";
import type { RolloutConfig } from "../config/rollout-config";
import { isEngineOutageError } from "../controller/engine-health";
import { listenGateway } from "../runtime/listen-gateway";
import { loadTextStack } from "../runtime/load-text-stack";
import { planRolloutComponents } from "../runtime/plan-rollout-components";
import { createAgentApi } from "../service/create-agent-api";
import { EngineFaultHold } from "../service/engine-fault-hold";
import { GatewaySession } from "../service/gateway-session";
import { GatePauseCancelledError, GatePauseTimeoutError, GenerationGate } from "../service/generation-gate";
import { SessionRegistry } from "../service/session-registry";
import {
  type ControllerMessage,
  controllerMessageSchema,
  createIpcChannel,
  type SessionOpenMessage,
  type ShardMessage,
} from "./shard-protocol";

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
  const engine =
    "baseUrl" in init.engine
      ? createSglangClient({ baseUrl: init.engine.baseUrl })
      : createSglangClient({ workers: init.engine.workers });
  const gate = new GenerationGate({
    engine,
    ...(init.gate.weightVersion !== undefined ? { weightVersion: init.gate.weightVersion } : {}),
  });
  if (init.gate.paused) void gate.pause();
  let step: number | null = init.step;
  const registry = new SessionRegistry();
  /** Every open session by label, closed ones until their final state is sent. */
  const sessions = new Map<string, GatewaySession>();

  // Session counters are mirrored in batches: every change marks the session, one flush per tick.
  const dirty = new Set<GatewaySession>();
  let flushScheduled = false;
  let lastGate = "";
  const flush = () => {
    flushScheduled = false;
    if (dirty.size > 0) {
      channel.send({
        type: "state",
        sessions: [...dirty].map((session) => ({
          id: session.id,
          requests: session.requests,
          inflight: session.inflight,
          generating: session.generating,
          abortCount: session.abortCount,
          protected: session.protected,
        })),
      });
      dirty.clear();
    }
    const gateReport = { state: gate.state, counts: gate.counts() };
    const key = JSON.stringify(gateReport);
    if (key !== lastGate) {
      lastGate = key;
      channel.send({ type: "gate", ...gateReport });
    }
  };
  const scheduleFlush = () => {
    if (flushScheduled) return;
    flushScheduled = true;
    setImmediate(flush);
  };
  gate.onChange(scheduleFlush);

  const open = (message: SessionOpenMessage) => {
    const session: GatewaySession = new GatewaySession({
      id: message.id,
      credential: message.credential,
      groupId: message.groupId,
      mode: message.mode,
      forest: new SessionForest({
        ...(message.forest as Omit<SessionForestOptions, "renderer">),
        renderer: text.renderer,
      }),
      ...(message.samplingSeedBase !== undefined ? { samplingSeedBase: message.samplingSeedBase } : {}),
      onChange: () => {
        dirty.add(session);
        scheduleFlush();
      },
    });
    registry.add(session);
    sessions.set(session.id, session);
  };

  const close = (id: string, reason: string) => {
    const session = sessions.get(id);
    if (session === undefined) return;
    registry.remove(id, reason);
    sessions.delete(id);
    dirty.delete(session);
    channel.send({
      type: "closed",
      id,
      final: {
        forest: session.forest.toSnapshot(),
        sideForests: [...session.sideForests].map(([name, forest]) => [name, forest.toSnapshot()]),
        requestClasses: [...session.requestClasses],
        stats: { ...session.stats },
        ...(session.lastRefusal !== undefined ? { lastRefusal: session.lastRefusal } : {}),
      },
    });
  };

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
    registry,
    gate,
    engine,
    tokenizer: text.tokenizer,
    renderer: text.renderer,
    ...(text.images !== undefined ? { images: text.images } : {}),
    ...(text.offload !== undefined ? { offload: text.offload } : {}),
    currentStep: () => step ?? undefined,
    health: () => ({ shard: init.shard }),
    ...(init.controlToken !== undefined ? { controlToken: init.controlToken } : {}),
    events: {
      turn: ({ error, ...event }) => {
        // Counters first: the controller's view of `inflight` must not lag the turn it reports.
        flush();
        channel.send({
          type: "turn",
          event: event as unknown as Record<string, unknown>,
          ...(error !== undefined
            ? {
                error: {
                  name: error instanceof Error ? error.name : "Error",
                  message: error instanceof Error ? error.message : String(error),
                  outage: isEngineOutageError(error),
                },
              }
            : {}),
        });
      },
      notice: (notice) => channel.send({ type: "notice", ...notice }),
      warning: (warning, context) =>
        channel.send({
          type: "warning",
          warning: { type: warning.type, path: warning.path, message: warning.message },
          protocol: context.protocol,
          ...(context.session !== undefined ? { session: context.session } : {}),
        }),
      refusal: (event) =>
        channel.send({ type: "refusal", event: event as unknown as Record<string, unknown> }),
    },
  });

  handlers = (message) => {
    switch (message.type) {
      case "open":
        try {
          open(message);
          channel.send({ type: "opened", id: message.id });
        } catch (error) {
          channel.send({ type: "open_failed", id: message.id, message: (error as Error).message });
        }
        return;
      case "lease":
        sessions.get(message.id)?.lease();
        return;
      case "close":
        close(message.id, message.reason);
        return;
      case "step":
        step = message.step;
        return;
      case "pause": {
        const { seq } = message;
        gate.pause(message.timeoutMs !== undefined ? { timeoutMs: message.timeoutMs } : {}).then(
          (result) => channel.send({ type: "paused", seq, result }),
          (error: unknown) =>
            channel.send({
              type: "pause_failed",
              seq,
              kind: GatePauseTimeoutError.isInstance(error)
                ? "timeout"
                : GatePauseCancelledError.isInstance(error)
                  ? "cancelled"
                  : "other",
              message: error instanceof Error ? error.message : String(error),
              generating: gate.counts().generating,
            }),
        );
        return;
      }
      case "resume":
        gate.resume(message.weightVersion !== undefined ? { weightVersion: message.weightVersion } : {});
        return;
      case "weight_version":
        gate.setWeightVersion(message.version);
        return;
      case "shutdown":
        for (const id of [...sessions.keys()]) close(id, "gateway shutting down");
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
