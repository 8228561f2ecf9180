import type { ChatRenderer, ImageStore, TextTokenizer } from "@relax/chat";
import type { ProtocolWarning, RequestEndEvent } from "@relax/protocol";
import type { SglangClient } from "@relax/sglang";
import type { Hono } from "hono";
import type { RolloutComponents } from "../runtime/plan-rollout-components";
import { createGatewayApp } from "./create-gateway-app";
import { createTokenCounter } from "./create-token-counter";
import { createTurnRunner, type TurnEvent } from "./create-turn-runner";
import type { EncodeOffload } from "./encode-offload";
import type { EngineFaultHold } from "./engine-fault-hold";
import type { GenerationGate } from "./generation-gate";
import type { SessionRegistry } from "./session-registry";

/**
 * What the agent-facing API of one gateway process reports (a sharded gateway forwards each to its
 * controller, which logs and counts them exactly as a one-process gateway does).
 */
export interface AgentApiEvents {
  /** A committed or failed turn (see `TurnRunnerOptions.onTurn`). */
  turn(event: TurnEvent): void;
  /** A configuration problem the traffic revealed (once per process and code). */
  notice(notice: { code: string; message: string }): void;
  /** A request field Relax did not honour; `session` is the session's label (never its credential). */
  warning(warning: ProtocolWarning, context: { protocol: string; session?: string }): void;
  /** A non-2xx answer to an agent; `sessionId` is the session's label when the session is known. */
  refusal(event: Omit<RequestEndEvent, "error"> & { message: string; group?: string }): void;
}

/** Options of {@link createAgentApi}. */
export interface AgentApiOptions {
  components: RolloutComponents;
  registry: SessionRegistry;
  /** This process's generation gate (engine calls of its sessions pass it). */
  gate: GenerationGate;
  engine: SglangClient;
  tokenizer: TextTokenizer;
  renderer: ChatRenderer;
  images?: ImageStore;
  offload?: EncodeOffload;
  /** The train step running now (stamped on each turn). */
  currentStep: () => number | undefined;
  events: AgentApiEvents;
  /** Extra fields for `/health`. */
  health: () => Record<string, unknown>;
  /** A bearer token refused as a session credential (the trainer's control token). */
  controlToken?: string;
  /** This process's engine-failure hold (docs/contract.md#engine-failures). */
  faults?: EngineFaultHold;
}

/**
 * The agent-facing API of one gateway process: the turn runner (token in / token out through this
 * process's gate and engine client) mounted on the three protocols by {@link createGatewayApp}, with the
 * run's turn, template, parser, normaliser and request-class settings from `components`. The same
 * function builds a one-process gateway and every shard of `--gateway-shards`, so both answer alike.
 */
export function createAgentApi(options: AgentApiOptions): Hono {
  const { components, registry, events } = options;
  const { crossStep } = components;
  /** A presented credential's session label, for logs (never the credential itself). */
  const labelOf = (credential: string | undefined) =>
    credential !== undefined ? (registry.get(credential)?.id ?? "(unknown)") : undefined;
  const generate = createTurnRunner({
    ...(options.images ? { images: options.images } : {}),
    gate: options.gate,
    ...(crossStep.maxAbortedCount !== undefined ? { maxAbortedCount: crossStep.maxAbortedCount } : {}),
    // A partial-rollout step close pauses the gate for train sessions; an eval is not held by it.
    ...(crossStep.partialRollout ? { bypassGate: (session) => session.mode === "eval" } : {}),
    currentStep: options.currentStep,
    ...(options.offload !== undefined ? { offload: options.offload } : {}),
    ...(options.faults !== undefined ? { faults: options.faults } : {}),
    registry,
    engine: options.engine,
    tokenizer: options.tokenizer,
    renderer: options.renderer,
    ...components.turns,
    onNotice: (notice) => events.notice(notice),
    onTurn: (event) => events.turn(event),
  });
  const { gateway } = components;
  return createGatewayApp({
    registry,
    generate,
    basePath: gateway.basePath,
    heartbeatMs: gateway.heartbeatMs,
    maxRequestBytes: gateway.maxRequestBytes,
    maxJsonDepth: gateway.maxJsonDepth,
    requestLimits: gateway.requestLimits,
    refusalBackoffMaxMs: gateway.refusalBackoffMaxMs,
    health: options.health,
    // context.sessionId is the presented credential: the events carry the session's label instead.
    onWarning: (warning, context) => {
      const session = labelOf(context.sessionId);
      events.warning(warning, { protocol: context.protocol, ...(session !== undefined ? { session } : {}) });
    },
    onRefusal: ({ error: _error, ...event }) => events.refusal(event),
    normalizers: components.normalizers,
    countTokens: createTokenCounter(options.renderer, components.turns.defaultTemplateKwargs),
    ...(options.controlToken !== undefined ? { controlToken: options.controlToken } : {}),
  });
}
