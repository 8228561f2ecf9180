import { z } from "zod";
import { ShardProtocolError } from "../errors/shard-protocol-error";

/**
 * The typed messages between a sharded gateway's controller and its shards (`--gateway-shards`; see
 * docs/architecture.md#gateway-shards). Every message is a JSON-compatible object with a `type`, so the
 * same protocol runs over Node's IPC channel today and over any ordered, reliable byte stream later
 * (a WebSocket or a TCP connection between machines): see {@link ShardChannel}. Both ends validate what
 * they receive with these schemas; large opaque payloads (forest snapshots, which
 * `SessionForest.fromSnapshot` validates itself) are `unknown` here.
 *
 * Ordering is the one guarantee the protocol relies on: messages on one channel arrive in the order
 * sent (a `step` before the `lease` that follows it, a `resume` before a later `pause`).
 */

/** How a shard reaches the inference engine: one URL (a server or a router) or workers. */
export const engineSpecSchema = z.union([
  z.object({ baseUrl: z.string().url() }).strict(),
  z.object({ workers: z.array(z.string().url()).min(1) }).strict(),
]);
export type EngineSpec = z.infer<typeof engineSpecSchema>;

const sessionOpenSchema = z
  .object({
    type: z.literal("open"),
    id: z.string().min(1),
    credential: z.string().min(1),
    groupId: z.string().min(1),
    mode: z.enum(["train", "eval"]),
    /** `SessionForestOptions` without the renderer. */
    forest: z.record(z.string(), z.unknown()),
    samplingSeedBase: z.number().int().optional(),
  })
  .strict();

/** Controller → shard. */
export const controllerMessageSchema = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("init"),
      /** This shard's index (0-based). */
      shard: z.number().int().min(0),
      /** What the shard builds its gateway from, as the pool was given it (`@relax/runtime`: the validated `RolloutConfig`). */
      config: z.record(z.string(), z.unknown()),
      /** Directory relative paths resolve against. */
      cwd: z.string(),
      engine: engineSpecSchema,
      /** Encode worker threads of this shard. */
      encodeWorkers: z.number().int().min(1),
      /** Most encode workers of this shard, spares included (the pool's spares split over the shards). */
      encodeMaxWorkers: z.number().int().min(1),
      /** The gate at start: a shard restarted while the run is paused starts paused. */
      gate: z.object({ paused: z.boolean(), weightVersion: z.string().optional() }).strict(),
      /** The train step running now. */
      step: z.number().int().nullable(),
      /** The trainer's control token (`relax serve`), refused as a session credential. */
      controlToken: z.string().optional(),
    })
    .strict(),
  sessionOpenSchema,
  z.object({ type: z.literal("lease"), id: z.string() }).strict(),
  z.object({ type: z.literal("close"), id: z.string(), reason: z.string() }).strict(),
  z.object({ type: z.literal("step"), step: z.number().int().nullable() }).strict(),
  z
    .object({ type: z.literal("pause"), seq: z.number().int(), timeoutMs: z.number().positive().optional() })
    .strict(),
  z.object({ type: z.literal("resume"), weightVersion: z.string().optional() }).strict(),
  z.object({ type: z.literal("weight_version"), version: z.string() }).strict(),
  z.object({ type: z.literal("shutdown") }).strict(),
]);
export type ControllerMessage = z.infer<typeof controllerMessageSchema>;
export type SessionOpenMessage = z.infer<typeof sessionOpenSchema>;

/** A session's live counters, mirrored to the controller after each change. */
export const sessionStateSchema = z
  .object({
    id: z.string(),
    requests: z.number().int().min(0),
    inflight: z.number().int().min(0),
    generating: z.number().int().min(0),
    abortCount: z.number().int().min(0),
    protected: z.boolean(),
  })
  .strict();
export type SessionStateReport = z.infer<typeof sessionStateSchema>;

const gateCountsSchema = z
  .object({
    generating: z.number().int().min(0),
    held: z.number().int().min(0),
    abortedPartials: z.number().int().min(0),
    bypassing: z.number().int().min(0),
  })
  .strict();

const refusalSchema = z
  .object({
    status: z.number().int(),
    path: z.string(),
    message: z.string(),
  })
  .strict();

/** What a closed session leaves: its forests and counters (the controller exports from them). */
export const sessionFinalSchema = z
  .object({
    /** `SessionForest#toSnapshot()`. */
    forest: z.unknown(),
    /** `[request class, snapshot]` of each side forest (policy `record`). */
    sideForests: z.array(z.tuple([z.string(), z.unknown()])),
    requestClasses: z.array(z.tuple([z.string(), z.number().int()])),
    stats: z
      .object({ turns: z.number(), generatedTokens: z.number(), engineMs: z.number(), gatewayMs: z.number() })
      .strict(),
    lastRefusal: refusalSchema.optional(),
  })
  .strict();
export type SessionFinal = z.infer<typeof sessionFinalSchema>;

/** Shard → controller. */
export const shardMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), port: z.number().int().min(1) }).strict(),
  /** Sent every second from the shard's event loop: a shard silent past the timeout is declared hung. */
  z.object({ type: z.literal("heartbeat") }).strict(),
  z.object({ type: z.literal("init_failed"), message: z.string() }).strict(),
  z.object({ type: z.literal("opened"), id: z.string() }).strict(),
  z.object({ type: z.literal("open_failed"), id: z.string(), message: z.string() }).strict(),
  z.object({ type: z.literal("state"), sessions: z.array(sessionStateSchema) }).strict(),
  z.object({ type: z.literal("closed"), id: z.string(), final: sessionFinalSchema }).strict(),
  z
    .object({
      type: z.literal("gate"),
      state: z.enum(["open", "pausing", "paused"]),
      counts: gateCountsSchema,
    })
    .strict(),
  z
    .object({
      type: z.literal("paused"),
      seq: z.number().int(),
      result: z
        .object({
          abortedRequests: z.number().int(),
          heldRequests: z.number().int(),
          quiescentMs: z.number(),
        })
        .strict(),
    })
    .strict(),
  z
    .object({
      type: z.literal("pause_failed"),
      seq: z.number().int(),
      kind: z.enum(["timeout", "cancelled", "other"]),
      message: z.string(),
      generating: z.number().int().min(0),
    })
    .strict(),
  /** A turn event; `error` flattened (`outage`: the engine was unreachable or answered 5xx/429). */
  z
    .object({
      type: z.literal("turn"),
      event: z.record(z.string(), z.unknown()),
      error: z.object({ name: z.string(), message: z.string(), outage: z.boolean() }).strict().optional(),
    })
    .strict(),
  z.object({ type: z.literal("notice"), code: z.string(), message: z.string() }).strict(),
  /** The shard's engine-failure hold changed (docs/contract.md#engine-failures); `fault`: a turn was just held. */
  z
    .object({
      type: z.literal("engine_faults"),
      held: z.number().int().min(0),
      counters: z
        .object({
          outages: z.number().int().min(0),
          heldTurns: z.number().int().min(0),
          resumedTurns: z.number().int().min(0),
          exhaustedTurns: z.number().int().min(0),
          stalledCalls: z.number().int().min(0),
        })
        .strict(),
      fault: z
        .object({
          kind: z.string(),
          worker: z.string().optional(),
          sessionId: z.string().optional(),
          message: z.string(),
        })
        .strict()
        .optional(),
    })
    .strict(),
  /** A WARN line of the shard's engine-failure hold (a hung engine call), logged by the controller. */
  z
    .object({
      type: z.literal("engine_fault_log"),
      fields: z.record(z.string(), z.unknown()),
      message: z.string(),
    })
    .strict(),
  z
    .object({
      type: z.literal("warning"),
      warning: z
        .object({
          type: z.enum(["ignored-field", "dropped-tool", "dropped-content", "contract-change"]),
          path: z.string(),
          message: z.string(),
        })
        .strict(),
      protocol: z.string(),
      session: z.string().optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal("refusal"),
      event: z.record(z.string(), z.unknown()),
    })
    .strict(),
]);
export type ShardMessage = z.infer<typeof shardMessageSchema>;

/**
 * One end of an ordered, reliable message channel between the controller and a shard. The Node IPC
 * implementation is {@link createIpcChannel}; a network transport implements the same four members.
 */
export interface ShardChannel<Out, In> {
  /** Sends one message (queued in order; never throws once the channel is closed, the message is dropped). */
  send(message: Out): void;
  /** Registers the receiver of every message (validated before it is called). */
  onMessage(listener: (message: In) => void): void;
  /** Registers a callback for the end of the channel (the other end exited or the connection dropped). */
  onClose(listener: () => void): void;
  /** Closes this end. */
  close(): void;
}

/** What a Node IPC endpoint offers: a forked `ChildProcess`, or `process` inside the child. */
export interface IpcEndpoint {
  // biome-ignore lint/suspicious/noExplicitAny: Node's own listener signatures
  on(event: string, listener: (...args: any[]) => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: Node's own listener signatures
  off(event: string, listener: (...args: any[]) => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: Node's `Serializable` message type
  send?: ((message: any) => boolean) | undefined;
  connected?: boolean;
  disconnect?: (() => void) | undefined;
}

/**
 * A {@link ShardChannel} over a Node IPC endpoint (a forked child, or `process` inside it): messages are
 * validated with `schema` on arrival; an invalid one goes to `onInvalid` and is dropped.
 */
export function createIpcChannel<Out, In>(
  endpoint: IpcEndpoint,
  schema: z.ZodType<In>,
  onInvalid: (error: ShardProtocolError) => void,
): ShardChannel<Out, In> {
  const closeListeners: Array<() => void> = [];
  let closed = false;
  const onDisconnect = () => {
    if (closed) return;
    closed = true;
    for (const listener of closeListeners.splice(0)) listener();
  };
  endpoint.on("disconnect", onDisconnect);
  return {
    send: (message) => {
      if (closed || endpoint.connected === false || endpoint.send === undefined) return;
      try {
        endpoint.send(message);
      } catch {
        // The other end is gone: the disconnect event follows.
      }
    },
    onMessage: (listener) => {
      endpoint.on("message", (raw: unknown) => {
        const parsed = schema.safeParse(raw);
        if (!parsed.success) {
          const type = (raw as { type?: unknown } | null)?.type;
          onInvalid(
            new ShardProtocolError(
              `invalid shard message${typeof type === "string" ? ` "${type}"` : ""}: ${parsed.error.issues
                .slice(0, 3)
                .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
                .join("; ")}`,
            ),
          );
          return;
        }
        listener(parsed.data);
      });
    },
    onClose: (listener) => {
      if (closed) listener();
      else closeListeners.push(listener);
    },
    close: () => {
      if (closed) return;
      closed = true;
      endpoint.off("disconnect", onDisconnect);
      if (endpoint.connected !== false) endpoint.disconnect?.();
    },
  };
}
