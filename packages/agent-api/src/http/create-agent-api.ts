import type { ChatRenderer, ImageStore, TextTokenizer } from "@relax/chat";
import type { HarnessNormalizers, ProtocolWarning, RequestEndEvent, RequestLimits } from "@relax/protocol";
import type { SglangClient } from "@relax/sglang";
import type { Hono } from "hono";
import type { EncodeOffload } from "../encode/encode-offload";
import type { EngineFaultHold } from "../engine-fault/engine-fault-hold";
import type { GenerationGate } from "../gate/generation-gate";
import type { SessionRegistry } from "../session/session-registry";
import { createTurnRunner, type TurnEvent, type TurnRunnerOptions } from "../turn/create-turn-runner";
import { createGatewayApp } from "./create-gateway-app";
import { createTokenCounter } from "./create-token-counter";

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

/**
 * The run's settings of the agent-facing API (the same in every gateway process): how turns are rendered,
 * parsed and classified, the HTTP limits, and cross-step options. `@relax/runtime` derives them from the
 * rollout configuration (`RolloutComponents`).
 */
export interface AgentApiSettings {
  /** Sampling, template kwargs, parsers and the request classifier of every turn. */
  turns: Pick<
    TurnRunnerOptions,
    | "sampling"
    | "evalSampling"
    | "defaultTemplateKwargs"
    | "toolCallParser"
    | "reasoningParser"
    | "classifier"
    | "honorResponseFormat"
    | "parametersAlias"
    | "retryWindowMs"
  >;
  /** Per-harness request normalisers (`@relax/protocol`). */
  normalizers: Partial<HarnessNormalizers>;
  /** The HTTP side: base path, SSE heartbeat, request limits, refusal backoff. */
  gateway: {
    basePath: string;
    /** SSE heartbeat interval, in ms. */
    heartbeatMs: number;
    maxRequestBytes: number;
    maxJsonDepth: number;
    requestLimits: RequestLimits;
    /** `--refusal-backoff-max-ms` (0: off). */
    refusalBackoffMaxMs: number;
  };
  /** Cross-step options the turn runner honours. */
  crossStep: {
    /** `--partial-rollout`: a step close pauses the gate for train sessions; evals bypass it. */
    partialRollout: boolean;
    /** `--partial-rollout-max-aborted-count`. */
    maxAbortedCount?: number;
  };
}

/** Options of {@link createAgentApi}. */
export interface AgentApiOptions {
  settings: AgentApiSettings;
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
 * run's turn, template, parser, normaliser and request-class settings from `settings`. The same
 * function builds a one-process gateway and every shard of `--gateway-shards`, so both answer alike.
 */
export function createAgentApi(options: AgentApiOptions): Hono {
  const { settings, registry, events } = options;
  const { crossStep } = settings;
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
    ...settings.turns,
    onNotice: (notice) => events.notice(notice),
    onTurn: (event) => events.turn(event),
  });
  const { gateway } = settings;
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
    normalizers: settings.normalizers,
    countTokens: createTokenCounter(options.renderer, settings.turns.defaultTemplateKwargs),
    ...(options.controlToken !== undefined ? { controlToken: options.controlToken } : {}),
  });
}
