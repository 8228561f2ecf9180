import {
  type AssistantTurn,
  type ChatRenderer,
  type ConversationState,
  type ImageStore,
  type ParseIssue,
  parseAssistantOutput,
  type TextTokenizer,
} from "@relax/chat";
import { mergeTemplateKwargs } from "@relax/chat/internal";
import type { SessionForest, TurnPlan } from "@relax/forest";
import type { GenerateContext } from "@relax/protocol";
import type { GenerateOptions, SglangClient } from "@relax/sglang";
import type { EncodeOffload } from "../encode/encode-offload";
import type { EngineFaultHold } from "../engine-fault/engine-fault-hold";
import { GenerationAbortedError } from "../errors/generation-aborted-error";
import { SessionNotFoundError } from "../errors/session-not-found-error";
import type { GenerationGate } from "../gate/generation-gate";
import {
  createRequestClassifier,
  leadingSystemText,
  type RequestClassification,
  type RequestClassifier,
} from "../request-class/classify-request";
import type { GatewaySession } from "../session/gateway-session";
import type { SessionRegistry } from "../session/session-registry";
import { type ContinuedGeneration, generateWithContinuation } from "./generate-with-continuation";
import { type AnsweredTurn, type KeptAnswer, ReplayCache } from "./replay-cache";
import { resolveRequestImages } from "./resolve-request-images";
import { DEFAULT_RETRY_WINDOW_MS, RetryWindow } from "./retry-window";
import {
  lastMainResponse,
  planTurnPrompt,
  selectTurnForest,
  type TurnPrompt,
  tokenLogprobs,
  turnCommitMetadata,
  turnSamplingParams,
} from "./turn-steps";

/**
 * Sampling settings of the rollout; the agent's own `temperature`/`top_p` are ignored (see
 * docs/contract.md#rules-for-every-request).
 */
export interface RolloutSampling {
  temperature: number;
  topP: number;
  topK: number;
  /** Max new tokens per turn (`--rollout-max-response-len`); a request may ask for fewer. */
  maxResponseLen: number;
}

/** What a turn runner needs; see {@link createTurnRunner}. */
export interface TurnRunnerOptions {
  registry: SessionRegistry;
  engine: SglangClient;
  tokenizer: TextTokenizer;
  renderer: ChatRenderer;
  sampling: RolloutSampling;
  /**
   * Sampling of eval sessions (`session.mode === "eval"`): `--eval-temperature`, `--eval-top-p`,
   * `--eval-top-k`, `--eval-max-response-len` over {@link sampling}, as slime's eval overrides. @default sampling
   */
  evalSampling?: RolloutSampling;
  /** `--apply-chat-template-kwargs`, merged under each request's kwargs before matching. */
  defaultTemplateKwargs: Record<string, unknown>;
  toolCallParser?: string;
  reasoningParser?: string;
  /**
   * Whether the tool-call parser reads `{"name": …, "parameters": {…}}` as `arguments` (the
   * `parametersAlias` harness normaliser). @default true
   */
  parametersAlias?: boolean;
  /**
   * Pass a request's structured-output schema (`response_format`, `text.format`, `output_config.format`)
   * to SGLang: the `json_schema` sampling parameter, or `structural_tag` (a tool call in the parser's syntax
   * or the schema; see `responseConstraint`) when the request has tools the model may call (off with
   * `--no-honor-response-format`). Constrained
   * decoding masks the logits, so the logprobs the trainer sees are those of the constrained
   * distribution, not of the policy alone. @default true (`false`: the format is ignored, with a WARN)
   */
  honorResponseFormat?: boolean;
  /** Called after every committed or failed turn, for logs and metrics. */
  onTurn?: (event: TurnEvent) => void;
  /**
   * Called when a request is answered again from an identical earlier request's answer (a client retry;
   * see `ReplayCache`): nothing was generated, and the forest records turn `turnId` as a replay of `replayOf`.
   */
  onReplay?: (event: { sessionId: string; turnId: number; replayOf: number }) => void;
  /**
   * How long a recorded turn's generation outlives its client, in milliseconds, so that the client's retry
   * is answered by it (see `RetryWindow`, docs/contract.md#idempotent-requests); `0` aborts the generation
   * when the client leaves. @default 30000
   */
  retryWindowMs?: number;
  /**
   * Called once per run and `code` for a configuration problem that the traffic reveals. Today:
   * `tool_call_parser_missing` — a request declares tools but no tool-call parser is set, so tool calls the
   * model writes come back to the agent as plain text (set `--agentic-tool-call-parser`).
   */
  onNotice?: (notice: { code: "tool_call_parser_missing"; message: string }) => void;
  /**
   * The run's pause/resume gate (`relax serve`): engine calls wait while it is closed, and a generation a
   * pause aborted continues from its partial output on resume. Without it, one engine call per turn.
   */
  gate?: GenerationGate;
  /**
   * `--partial-rollout-max-aborted-count`: a session whose pause aborts reach this count becomes protected
   * at the next gate resume (its calls bypass the gate). Absent: never protected.
   */
  maxAbortedCount?: number;
  /**
   * Extra sessions whose engine calls bypass the gate (e.g. eval sessions under `--partial-rollout`, so a
   * train step close does not hold an eval). Protected sessions always bypass. @default none
   */
  bypassGate?: (session: GatewaySession) => boolean;
  /**
   * The train step running now (the controller's `currentStep`): each committed turn's metadata records
   * it as `rolloutStep` (the step when the turn's generation began), from which rows derive
   * `weight_version_lag`. @default not recorded
   */
  currentStep?: () => number | undefined;
  /**
   * Classifies each request (main loop, sub-agent, compaction, title, summary, probe) and picks its policy:
   * `train` → the session's forest; `record` → the session's side forest of that class (debug dump only);
   * `passthrough` → generated, not recorded. @default the built-in rules and default policies
   */
  classifier?: RequestClassifier;
  /**
   * Where request images are resolved for a vision renderer (`createVisionRenderer`); without it the
   * chat template is text-only and a request with an image is a 400 naming the image's field.
   */
  images?: ImageStore;
  /**
   * Tokenises large observations in worker threads (`renderer` must be built on `offload.tokenizer`), and
   * refuses one whose size alone exceeds the context before tokenising it. Without it, every text is
   * tokenised on the event loop.
   */
  offload?: EncodeOffload;
  /**
   * Engine failures of in-flight turns are held and continued within a budget (docs/contract.md#engine-failures).
   * Without it, a failed engine call fails the turn at once.
   */
  faults?: EngineFaultHold;
}

const IMAGE_REFUSAL =
  "this model's chat template reads text only and cannot take an image; serve a vision chat template with --processor-config";

/** One finished (or failed) turn, as reported to `onTurn`. */
export interface TurnEvent {
  sessionId: string;
  turnId: number;
  transition: string;
  finishReason?: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
  /** Milliseconds the request spent held at the first-request barrier or a paused generation gate. */
  heldMs: number;
  /** The request's class and the rule that chose it. */
  classification?: RequestClassification;
  /** Milliseconds in the engine call. */
  engineMs: number;
  /** Milliseconds of gateway work: matching, rendering, parsing, committing. */
  gatewayMs: number;
  /** What the parsers reported for a committed turn (malformed or cut-off tool calls, unknown tools). */
  issues?: ParseIssue[];
  error?: unknown;
}

/**
 * Builds the `generate` callback of the protocol handler: one model request of a session, token in /
 * token out. Steps: find the session (404 when it is unknown or closed) → merge template kwargs →
 * `forest.beginTurn` (longest committed prefix; the new observation is committed before generation) →
 * wait for the Group's Runtime lease → SGLang `/generate` with the lineage token ids, the session id as
 * routing key and the rollout's sampling → decode the output ids with special tokens → reasoning and
 * tool-call parsers → `forest.commitResponse` with the exact ids and logprobs → the protocol-neutral
 * {@link AssistantTurn}. A response is never re-tokenised.
 *
 * Errors are thrown typed and unwrapped (`ForestInputError`, `SessionContextLengthError`,
 * `ChatTemplateError`, the `@relax/sglang` errors, {@link SessionNotFoundError},
 * {@link GenerationAbortedError}, …); `@relax/protocol`'s `ERROR_STATUS_TABLE` alone picks their status.
 */
export function createTurnRunner(
  options: TurnRunnerOptions,
): (context: GenerateContext) => Promise<AssistantTurn> {
  const runner: TurnRunnerState = {
    options,
    stopTokenIds: [...options.tokenizer.stopTokenIds],
    noticed: new Set<string>(),
    classifier: options.classifier ?? createRequestClassifier(),
    pendingProtection: new Set<GatewaySession>(),
    replays: new ReplayCache(),
  };
  // Protection is promoted at the gate's next resume, before any held call is re-admitted (this listener
  // is registered before any ticket waits).
  options.gate?.onChange(({ state }) => {
    if (state !== "open") return;
    for (const session of runner.pendingProtection) session.promoteProtection();
    runner.pendingProtection.clear();
  });
  return (context) => runTurn(runner, context);
}

/** What every turn of one runner shares. */
interface TurnRunnerState {
  options: TurnRunnerOptions;
  stopTokenIds: number[];
  /** Notices already given (once per run). */
  noticed: Set<string>;
  classifier: RequestClassifier;
  /** Sessions to protect at the gate's next resume (their pause aborts reached the limit). */
  pendingProtection: Set<GatewaySession>;
  /** Recent answers per forest: an identical request (a client retry) is answered from them. */
  replays: ReplayCache;
}

/** One turn in flight: its session, class, forest and clocks (what a failure report needs). */
interface TurnInFlight {
  session: GatewaySession;
  classification: RequestClassification;
  /** The forest the turn is recorded in; `undefined` for a passthrough request. */
  forest: SessionForest | undefined;
  /** A side-forest turn's parent turn (the main forest's last committed response when it arrived). */
  parentStateHash?: string | undefined;
  /** The request's signal: the client's, also aborted when the session closes. */
  signal: AbortSignal;
  started: number;
  heldMs: number;
  engineMs: number;
  plan?: TurnPlan | undefined;
  /**
   * Resolves once the finished generation has a reader (its client, or a retry that claimed it); rejects
   * when nobody came for it. Absent: the answer is always read.
   */
  untilRead?: () => Promise<void>;
}

/** The engine's answer to one turn and its parse. */
interface GeneratedTurn {
  generation: ContinuedGeneration;
  finishReason: ContinuedGeneration["finishReason"]["type"];
  parsed: ReturnType<typeof parseAssistantOutput>;
  rolloutStep: number | undefined;
}

// `credential` is the Bearer token the agent sent; everything after the lookup uses the session's
// non-secret id, so that the credential never reaches an event, a log line or an error message.
async function runTurn(runner: TurnRunnerState, context: GenerateContext): Promise<AssistantTurn> {
  const { options } = runner;
  const { sessionId: credential, request: canonicalRequest, signal: clientSignal, http } = context;
  noticeMissingToolParser(runner, canonicalRequest.tools.length);
  const session = options.registry.get(credential);
  if (session === undefined) throw new SessionNotFoundError({ sessionId: "(unknown)" });
  const classification = classifyTurn(runner, session, canonicalRequest, http);
  const forest = selectTurnForest(
    session,
    classification.requestClass,
    runner.classifier.policyOf(classification.requestClass),
    options.renderer,
  );
  const controller = session.beginRequest(clientSignal);
  const turn: TurnInFlight = {
    session,
    classification,
    forest,
    ...(forest !== undefined && forest !== session.forest
      ? { parentStateHash: lastMainResponse(session) }
      : {}),
    signal: controller.signal,
    started: performance.now(),
    heldMs: 0,
    engineMs: 0,
  };
  try {
    return await generateTurn(runner, context, turn);
  } catch (error) {
    reportFailedTurn(runner, turn, error);
    // A request aborted because its session closed reads as "session discarded", not a disconnect.
    if (turn.signal.aborted && !clientSignal.aborted)
      throw new SessionNotFoundError({ sessionId: session.id, cause: error });
    throw error;
  } finally {
    session.endRequest(controller);
  }
}

/** Gives the `tool_call_parser_missing` notice once per run, at the first request that declares tools. */
function noticeMissingToolParser(runner: TurnRunnerState, toolCount: number): void {
  const { options, noticed } = runner;
  if (options.toolCallParser !== undefined || toolCount === 0 || noticed.has("parser")) return;
  noticed.add("parser");
  options.onNotice?.({
    code: "tool_call_parser_missing",
    message:
      "agents send tools but no tool-call parser is set: the model's tool calls reach them as plain text; set --agentic-tool-call-parser (e.g. qwen25 for Qwen)",
  });
}

/**
 * Classifies the request and books it on the session: the per-class count, the compaction flag, and
 * the main system prompt (the first `main` request that declares tools names it).
 */
function classifyTurn(
  runner: TurnRunnerState,
  session: GatewaySession,
  canonicalRequest: GenerateContext["request"],
  http: GenerateContext["http"],
): RequestClassification {
  const classification = runner.classifier.classify(
    { path: http?.path ?? "", headers: http?.headers ?? {}, request: canonicalRequest },
    session.mainSystemPrompt !== undefined ? { mainSystemPrompt: session.mainSystemPrompt } : {},
  );
  const { requestClass } = classification;
  session.requestClasses.set(requestClass, (session.requestClasses.get(requestClass) ?? 0) + 1);
  if (requestClass === "compaction") session.compactedSinceTrain = true;
  if (
    requestClass === "main" &&
    runner.classifier.policyOf(requestClass) === "train" &&
    session.mainSystemPrompt === undefined &&
    canonicalRequest.tools.length > 0
  ) {
    session.mainSystemPrompt = leadingSystemText(canonicalRequest.messages);
  }
  return classification;
}

/** Plans, generates, parses and commits one turn; the answer to the agent. */
async function generateTurn(
  runner: TurnRunnerState,
  context: GenerateContext,
  turn: TurnInFlight,
): Promise<AssistantTurn> {
  const { options } = runner;
  const { request: canonicalRequest, imagePath } = context;
  const { session, forest, signal } = turn;
  const state: ConversationState = {
    messages: canonicalRequest.messages,
    tools: canonicalRequest.tools,
    chatTemplateKwargs: mergeTemplateKwargs(
      options.defaultTemplateKwargs,
      canonicalRequest.chatTemplateKwargs,
    ),
  };
  const { maxResponseLen } = samplingOf(options, session);
  const requestedMax = Math.min(canonicalRequest.maxTokens ?? maxResponseLen, maxResponseLen);
  await resolveRequestImages({
    request: canonicalRequest,
    images: options.images,
    imagePath,
    refusal: IMAGE_REFUSAL,
    signal,
  });
  const prompt = await planTurnPrompt({
    session,
    forest,
    state,
    requestedMax,
    renderer: options.renderer,
    offload: options.offload,
    signal,
  });
  turn.plan = prompt.plan;
  const replayKey =
    forest !== undefined && prompt.plan !== undefined
      ? ReplayCache.keyOf(prompt.plan.observationStateHash, canonicalRequest, context.responseFormat)
      : undefined;
  // An identical request answered (or being answered) before: a client retry. Answer it again. The
  // look-up and the keep below run in one synchronous stretch, so of two identical requests one generates.
  // When the earlier answer failed, look again: of several waiters the first to resume generates (the
  // failed answer is already forgotten) and the others wait for it.
  if (replayKey !== undefined && !prompt.plan!.observationCreated) {
    for (
      let earlier = runner.replays.lookup(forest!, replayKey);
      earlier !== undefined;
      earlier = runner.replays.lookup(forest!, replayKey)
    ) {
      const replayed = await replayEarlierAnswer(runner, turn, earlier);
      if (replayed !== undefined) return replayed;
    }
  }
  if (replayKey === undefined) return (await generatePlannedTurn(runner, context, turn, prompt, state)).turn;
  // The generation outlives its client for a while, for the client's retry; it commits only once read.
  const window = new RetryWindow({
    client: context.signal,
    session: session.closedSignal,
    windowMs: options.retryWindowMs ?? DEFAULT_RETRY_WINDOW_MS,
  });
  turn.signal = window.signal;
  turn.untilRead = () => window.untilRead();
  const answer = generatePlannedTurn(runner, context, turn, prompt, state).finally(() => window.dispose());
  // Kept before generating, so an identical request arriving meanwhile waits for this answer.
  runner.replays.keep(forest!, replayKey, answer, () => window.claim());
  return (await answer).turn;
}

/**
 * The earlier answer of an identical request, committed again as this turn's answer
 * (`SessionForest.commitReplay`), or `undefined` when the earlier request failed (this one then generates).
 *
 * @throws the turn signal's reason when the client goes away or the session closes while it waits.
 */
async function replayEarlierAnswer(
  runner: TurnRunnerState,
  turn: TurnInFlight,
  earlier: KeptAnswer,
): Promise<AssistantTurn | undefined> {
  const { forest, plan, signal } = turn;
  const release = earlier.claim();
  const answered = await untilAborted(earlier.answer, signal)
    .catch((error: unknown) => {
      if (signal.aborted) throw error;
      return undefined;
    })
    .finally(release);
  if (answered === undefined) return undefined;
  forest!.commitReplay(plan!, answered.responseStateHash);
  runner.options.onReplay?.({ sessionId: turn.session.id, turnId: plan!.turnId, replayOf: answered.turnId });
  return answered.turn;
}

/** `promise`, or the signal's reason once it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Waits for the lease, generates, parses and commits a planned turn; the answer and its response node. */
async function generatePlannedTurn(
  runner: TurnRunnerState,
  context: GenerateContext,
  turn: TurnInFlight,
  prompt: TurnPrompt,
  state: ConversationState,
): Promise<AnsweredTurn> {
  const { options } = runner;
  const { request: canonicalRequest } = context;
  const { session, forest, signal } = turn;
  const heldFrom = performance.now();
  await session.waitForLease(signal);
  turn.heldMs = performance.now() - heldFrom;
  const generated = await callEngine(runner, context, turn, prompt, state);
  // A generation whose client left is committed only for a retry that reads it.
  await turn.untilRead?.();
  const { generation, finishReason, parsed } = generated;
  const committed = forest?.commitResponse(turn.plan!, {
    outputIds: generation.outputIds,
    logprobs: generation.outputLogprobs,
    finishReason,
    message: parsed.message,
    ...(generation.weightVersion !== undefined ? { weightVersion: generation.weightVersion } : {}),
    ...(generation.weightVersionSpans !== undefined
      ? { weightVersionSpans: generation.weightVersionSpans }
      : {}),
    timing: {
      wallSeconds: (performance.now() - turn.started) / 1000,
      generationSeconds: turn.engineMs / 1000,
    },
    metadata: turnCommitMetadata({
      generation,
      requestClass: turn.classification.requestClass,
      rolloutStep: generated.rolloutStep,
      sessionAbortCount: session.abortCount,
      issues: parsed.issues,
      parentStateHash: turn.parentStateHash,
    }),
  });
  reportCommittedTurn(runner, turn, generated);
  const answer: AssistantTurn = {
    message: parsed.message,
    finishReason: parsed.finishReason,
    usage: {
      promptTokens: generation.promptTokens,
      completionTokens: generation.completionTokens,
      cachedTokens: generation.cachedTokens,
    },
    ...(canonicalRequest.logprobs
      ? { logprobs: tokenLogprobs(options.tokenizer, generation.outputIds, generation.outputLogprobs) }
      : {}),
    ...(parsed.issues.length > 0 ? { issues: parsed.issues } : {}),
    ...stopSequenceOf(generation.finishReason, parsed.finishReason),
  };
  return {
    turn: answer,
    responseStateHash: committed?.node.stateHash ?? "",
    turnId: turn.plan?.turnId ?? -1,
  };
}

/** The stop string that ended a `stop` turn (SGLang's `finish_reason.matched` when it is a string). */
function stopSequenceOf(
  finish: ContinuedGeneration["finishReason"],
  turnFinish: AssistantTurn["finishReason"],
): { stopSequence?: string } {
  return finish.type === "stop" && typeof finish.matched === "string" && turnFinish === "stop"
    ? { stopSequence: finish.matched }
    : {};
}

/**
 * The turn's engine call(s) through the gate (a pause continues from the partial output), then the
 * decode and the reasoning/tool-call parse.
 *
 * @throws GenerationAbortedError when the engine aborted the request (the signal's reason when it was ours).
 */
async function callEngine(
  runner: TurnRunnerState,
  context: GenerateContext,
  turn: TurnInFlight,
  prompt: TurnPrompt,
  state: ConversationState,
): Promise<GeneratedTurn> {
  const { options, pendingProtection } = runner;
  const { engine, tokenizer, gate } = options;
  const { session, signal, plan } = turn;
  // Passthrough requests send no image data (their prompt is not recorded).
  const imageData = plan?.imageData ?? [];
  const rolloutStep = options.currentStep?.();
  const generation = await generateWithContinuation({
    generate: (generateOptions: GenerateOptions) =>
      engine.generate(imageData.length > 0 ? { ...generateOptions, imageData } : generateOptions),
    ...(gate !== undefined ? { gate } : {}),
    inputIds: prompt.inputIds,
    signal,
    routingKey: session.id,
    onEngineStart: () => session.generationStarted(),
    onEngineEnd: () => session.generationEnded(),
    decode: (ids) => tokenizer.decode(ids, { skipSpecialTokens: false }),
    bypassGate: () => session.protected || (options.bypassGate?.(session) ?? false),
    ...(options.faults !== undefined ? { faults: options.faults, sessionId: session.id } : {}),
    onPauseAbort: () => {
      session.recordPauseAbort(options.maxAbortedCount);
      if (options.maxAbortedCount !== undefined && session.abortCount >= options.maxAbortedCount)
        pendingProtection.add(session);
    },
    sampling: turnSamplingParams({
      sampling: samplingOf(options, session),
      maxNewTokens: prompt.maxNewTokens,
      stopTokenIds: runner.stopTokenIds,
      canonicalRequest: context.request,
      honorResponseFormat: options.honorResponseFormat !== false,
      responseFormat: context.responseFormat,
      toolCallParser: options.toolCallParser,
      reasoningParser: options.reasoningParser,
      promptTail: () =>
        tokenizer.decode(Array.prototype.slice.call(prompt.inputIds, -16) as number[], {
          skipSpecialTokens: false,
        }),
      samplingSeedBase: session.samplingSeedBase,
      turnId: plan?.turnId ?? 0,
    }),
  });
  turn.heldMs += generation.heldMs;
  turn.engineMs = generation.engineMs;
  const rid = generation.rids[0]!;
  if (generation.finishReason.type === "abort") {
    signal.throwIfAborted();
    throw new GenerationAbortedError({ rid, detail: generation.finishReason.message });
  }
  const finishReason = generation.finishReason.type;
  const parsed = parseAssistantOutput({
    text: tokenizer.decode(generation.outputIds, { skipSpecialTokens: false }),
    tools: state.tools,
    finishReason,
    toolParser: options.toolCallParser,
    reasoningParser: options.reasoningParser,
    forceReasoning:
      options.reasoningParser !== undefined && options.renderer.promptEndsInOpenThink(prompt.inputIds),
    callIdSeed: plan?.observationStateHash ?? `passthrough:${rid}`,
    ...(options.parametersAlias !== undefined ? { parametersAlias: options.parametersAlias } : {}),
  });
  return { generation, finishReason, parsed, rolloutStep };
}

/** Books a committed turn on the session's stats and reports it to `onTurn`. */
function reportCommittedTurn(runner: TurnRunnerState, turn: TurnInFlight, generated: GeneratedTurn): void {
  const { session, plan, heldMs, engineMs } = turn;
  const { generation, parsed } = generated;
  session.stats.turns++;
  session.stats.generatedTokens += generation.outputIds.length;
  session.stats.engineMs += engineMs;
  const gatewayMs = performance.now() - turn.started - heldMs - engineMs;
  session.stats.gatewayMs += gatewayMs;
  runner.options.onTurn?.({
    sessionId: session.id,
    turnId: plan?.turnId ?? -1,
    transition: plan?.transition ?? "passthrough",
    classification: turn.classification,
    finishReason: generated.finishReason,
    promptTokens: generation.promptTokens,
    completionTokens: generation.completionTokens,
    cachedTokens: generation.cachedTokens,
    heldMs,
    engineMs,
    gatewayMs,
    ...(parsed.issues.length > 0 ? { issues: parsed.issues } : {}),
  });
}

/** Fails the planned turn in its forest (if it was planned) and reports the failure to `onTurn`. */
function reportFailedTurn(runner: TurnRunnerState, turn: TurnInFlight, error: unknown): void {
  const { plan, forest, heldMs, engineMs } = turn;
  if (plan !== undefined) {
    try {
      forest?.failTurn(plan, { reason: error instanceof Error ? error.message : String(error) });
    } catch {
      // The turn may already be settled; the original error matters more.
    }
  }
  runner.options.onTurn?.({
    sessionId: turn.session.id,
    turnId: plan?.turnId ?? -1,
    transition: plan?.transition ?? "none",
    classification: turn.classification,
    promptTokens: plan?.promptTokens ?? 0,
    completionTokens: 0,
    heldMs,
    engineMs,
    gatewayMs: performance.now() - turn.started - heldMs - engineMs,
    error,
  });
}

/** The sampling of a session's turns: eval sessions take the `--eval-*` overrides when given. */
function samplingOf(options: TurnRunnerOptions, session: GatewaySession): RolloutSampling {
  return session.mode === "eval" ? (options.evalSampling ?? options.sampling) : options.sampling;
}
