import type { ChatRenderer } from "@relax/chat";
import { SessionForest, type SessionForestOptions } from "@relax/forest";
import { isEngineOutageError } from "../engine-fault/is-engine-outage-error";
import { GatePauseCancelledError } from "../errors/gate-pause-cancelled-error";
import { GatePauseTimeoutError } from "../errors/gate-pause-timeout-error";
import type { GenerationGate } from "../gate/generation-gate";
import type { AgentApiEvents } from "../http/create-agent-api";
import { GatewaySession } from "../session/gateway-session";
import type { SessionRegistry } from "../session/session-registry";
import type { ControllerMessage, SessionOpenMessage, ShardMessage } from "./shard-protocol";

/** Sends one message to the controller (the shard's IPC channel). */
export type SendToController = (message: ShardMessage) => void;

/**
 * A shard's sessions and their mirror on the controller: `open` registers a session the controller
 * placed here, every change of a session's counters marks it and one flush per tick sends the marked
 * sessions' counters (`state`) and — when it changed — the gate's state and counts (`gate`); `close`
 * removes a session (404 from then on) and sends its final forests, request classes and stats.
 */
export class ShardSessions {
  /** Every open session by label, closed ones until their final state is sent. */
  readonly #sessions = new Map<string, GatewaySession>();
  readonly #dirty = new Set<GatewaySession>();
  #flushScheduled = false;
  #lastGate = "";

  constructor(
    readonly options: {
      send: SendToController;
      gate: Pick<GenerationGate, "state" | "counts" | "onChange">;
      registry: SessionRegistry;
      renderer: ChatRenderer;
    },
  ) {
    options.gate.onChange(() => this.scheduleFlush());
  }

  /** The open session with label `id`. */
  get(id: string): GatewaySession | undefined {
    return this.#sessions.get(id);
  }

  /** Labels of the open sessions. */
  ids(): string[] {
    return [...this.#sessions.keys()];
  }

  /** Sends the marked sessions' counters and the gate's state if it changed since the last send. */
  flush(): void {
    this.#flushScheduled = false;
    const { send, gate } = this.options;
    if (this.#dirty.size > 0) {
      send({
        type: "state",
        sessions: [...this.#dirty].map((session) => ({
          id: session.id,
          requests: session.requests,
          inflight: session.inflight,
          generating: session.generating,
          abortCount: session.abortCount,
          protected: session.protected,
        })),
      });
      this.#dirty.clear();
    }
    const gateReport = { state: gate.state, counts: gate.counts() };
    const key = JSON.stringify(gateReport);
    if (key !== this.#lastGate) {
      this.#lastGate = key;
      send({ type: "gate", ...gateReport });
    }
  }

  /** One {@link flush} at the next `setImmediate`, however many changes come before it. */
  scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /**
   * Opens the session the controller placed here (its forest on this shard's renderer).
   * @throws what `SessionRegistry.add` throws (a label or credential already open).
   */
  open(message: SessionOpenMessage): void {
    const session: GatewaySession = new GatewaySession({
      id: message.id,
      credential: message.credential,
      groupId: message.groupId,
      mode: message.mode,
      forest: new SessionForest({
        ...(message.forest as Omit<SessionForestOptions, "renderer">),
        renderer: this.options.renderer,
      }),
      ...(message.samplingSeedBase !== undefined ? { samplingSeedBase: message.samplingSeedBase } : {}),
      onChange: () => {
        this.#dirty.add(session);
        this.scheduleFlush();
      },
    });
    this.options.registry.add(session);
    this.#sessions.set(session.id, session);
  }

  /** Closes session `id` (unknown: nothing) and sends `closed` with its final state. */
  close(id: string, reason: string): void {
    const session = this.#sessions.get(id);
    if (session === undefined) return;
    this.options.registry.remove(id, reason);
    this.#sessions.delete(id);
    this.#dirty.delete(session);
    this.options.send({
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
  }
}

/**
 * The agent API's events of a shard, forwarded to the controller: a turn (counters flushed first, so
 * the controller's `inflight` never lags the turn; an error as name, message and whether it is an
 * engine outage), notices, protocol warnings and refusals.
 */
export function shardApiEvents(send: SendToController, flush: () => void): AgentApiEvents {
  return {
    turn: ({ error, ...event }) => {
      flush();
      send({
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
    notice: (notice) => send({ type: "notice", ...notice }),
    warning: (warning, context) =>
      send({
        type: "warning",
        warning: { type: warning.type, path: warning.path, message: warning.message },
        protocol: context.protocol,
        ...(context.session !== undefined ? { session: context.session } : {}),
      }),
    refusal: (event) => send({ type: "refusal", event: event as unknown as Record<string, unknown> }),
  };
}

/**
 * Pauses the shard's gate for the controller and answers `paused` with the pause's result, or
 * `pause_failed` with its kind (`timeout`, `cancelled`, `other`) and the generations still running.
 */
export function forwardPause(
  gate: Pick<GenerationGate, "pause" | "counts">,
  message: Extract<ControllerMessage, { type: "pause" }>,
  send: SendToController,
): void {
  const { seq } = message;
  gate.pause(message.timeoutMs !== undefined ? { timeoutMs: message.timeoutMs } : {}).then(
    (result) => send({ type: "paused", seq, result }),
    (error: unknown) =>
      send({
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
}
