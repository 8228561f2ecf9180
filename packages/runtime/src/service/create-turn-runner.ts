import {
  type AssistantTurn,
  type ChatRenderer,
  type ConversationState,
  type ImageStore,
  type ParseIssue,
  parseAssistantOutput,
  type TextTokenizer,
  type TokenLogprob,
} from "@relax/chat";
import { DUMMY_PREFIX_MESSAGES, mergeTemplateKwargs } from "@relax/chat/internal";
import { SessionContextLengthError, SessionForest, type TurnPlan } from "@relax/forest";
import type { GenerateContext } from "@relax/protocol";
import type { SglangClient } from "@relax/sglang";
import type { EncodeOffload } from "./encode-offload";
import { GenerationAbortedError, SessionNotFoundError } from "./gateway-errors";
import type { GatewaySession } from "./gateway-session";
import { generateWithContinuation } from "./generate-with-continuation";
import type { GenerationGate } from "./generation-gate";
import {
  createRequestClassifier,
  leadingSystemText,
  type RequestClassification,
  type RequestClassifier,
} from "./request-class/classify-request";
import { resolveRequestImages } from "./resolve-request-images";
import type { SessionRegistry } from "./session-registry";

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
   * `--honor-response-format`: pass a request's structured-output schema (`response_format`,
   * `text.format`, `output_config.format`) to SGLang as the `json_schema` sampling parameter. Constrained
   * decoding masks the logits, so the logprobs the trainer sees are those of the constrained
   * distribution, not of the policy alone. @default false (the format is ignored, with a WARN)
   */
  honorResponseFormat?: boolean;
  /** Called after every committed or failed turn, for logs and metrics. */
  onTurn?: (event: TurnEvent) => void;
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
  const { registry, engine, tokenizer, renderer, defaultTemplateKwargs, onTurn, gate } = options;
  const trainSampling = options.sampling;
  const evalSampling = options.evalSampling ?? trainSampling;
  const stopTokenIds = [...tokenizer.stopTokenIds];

  const noticed = new Set<string>();
  const classifier = options.classifier ?? createRequestClassifier();

  // Protection is promoted at the gate's next resume, before any held call is re-admitted (this listener
  // is registered before any ticket waits).
  const pendingProtection = new Set<GatewaySession>();
  gate?.onChange(({ state }) => {
    if (state !== "open") return;
    for (const session of pendingProtection) session.promoteProtection();
    pendingProtection.clear();
  });

  // `credential` is the Bearer token the agent sent; everything after the lookup uses the session's
  // non-secret id, so that the credential never reaches an event, a log line or an error message.
  return async ({
    sessionId: credential,
    request,
    signal: clientSignal,
    http,
    responseFormat,
    imagePath,
  }) => {
    if (options.toolCallParser === undefined && request.tools.length > 0 && !noticed.has("parser")) {
      noticed.add("parser");
      options.onNotice?.({
        code: "tool_call_parser_missing",
        message:
          "agents send tools but no tool-call parser is set: the model's tool calls reach them as plain text; set --agentic-tool-call-parser (e.g. qwen25 for Qwen)",
      });
    }
    const session = registry.get(credential);
    if (session === undefined) throw new SessionNotFoundError({ sessionId: "(unknown)" });
    const sessionId = session.id;
    const sampling = session.mode === "eval" ? evalSampling : trainSampling;
    const classification = classifier.classify(
      { path: http?.path ?? "", headers: http?.headers ?? {}, request },
      session.mainSystemPrompt !== undefined ? { mainSystemPrompt: session.mainSystemPrompt } : {},
    );
    const { requestClass } = classification;
    const classPolicy = classifier.policyOf(requestClass);
    session.requestClasses.set(requestClass, (session.requestClasses.get(requestClass) ?? 0) + 1);
    if (requestClass === "compaction") session.compactedSinceTrain = true;
    if (classPolicy === "train" && session.mainSystemPrompt === undefined && request.tools.length > 0) {
      session.mainSystemPrompt = leadingSystemText(request.messages);
    }
    let forest: SessionForest | undefined;
    if (classPolicy === "train") forest = session.forest;
    else if (classPolicy === "record") {
      forest = session.sideForests.get(requestClass);
      if (forest === undefined) {
        forest = new SessionForest({
          sessionId,
          renderer,
          policy: session.forest.policy,
          rolloutId: session.forest.rolloutId,
          ...(session.forest.maxContextTokens !== undefined
            ? { maxContextTokens: session.forest.maxContextTokens }
            : {}),
          metadata: { requestClass },
        });
        session.sideForests.set(requestClass, forest);
      }
    }
    const controller = session.beginRequest(clientSignal);
    const signal = controller.signal;
    const started = performance.now();
    let heldMs = 0;
    let engineMs = 0;
    let plan: TurnPlan | undefined;
    try {
      const state = {
        messages: request.messages,
        tools: request.tools,
        chatTemplateKwargs: mergeTemplateKwargs(defaultTemplateKwargs, request.chatTemplateKwargs),
      };
      const requestedMax = Math.min(request.maxTokens ?? sampling.maxResponseLen, sampling.maxResponseLen);
      await resolveRequestImages({
        request,
        images: options.images,
        imagePath,
        refusal: IMAGE_REFUSAL,
        signal,
      });
      let inputIds: ArrayLike<number>;
      let maxNewTokens = requestedMax;
      if (forest !== undefined) {
        const segmentStart = forest === session.forest && session.compactedSinceTrain;
        const target = forest;
        const begin = () =>
          target.beginTurn(state, {
            maxNewTokens: requestedMax,
            ...(segmentStart ? { segment: "compaction" as const } : {}),
          });
        plan =
          options.offload === undefined
            ? begin()
            : await options.offload.run(begin, {
                signal,
                check: (text) => refuseBySize(options.offload!, renderer, target, state, text),
                ...(target.maxContextTokens !== undefined
                  ? { maxContextTokens: target.maxContextTokens }
                  : {}),
                tooLarge: (atLeast) => {
                  throw new SessionContextLengthError({
                    maxContextLength: target.maxContextTokens ?? atLeast,
                    promptTokens: atLeast,
                    stage: "observation",
                    sessionId,
                  });
                },
              });
        if (segmentStart) session.compactedSinceTrain = false;
        inputIds = plan.inputIdArray;
        maxNewTokens = plan.maxNewTokens ?? requestedMax;
      } else {
        // passthrough: rendered, generated and answered; nothing is recorded.
        inputIds = renderer.renderPrompt(state);
        const room = (session.forest.maxContextTokens ?? Number.POSITIVE_INFINITY) - inputIds.length;
        if (room < 1) {
          throw new SessionContextLengthError({
            maxContextLength: session.forest.maxContextTokens!,
            promptTokens: inputIds.length,
            stage: "observation",
            sessionId,
          });
        }
        maxNewTokens = Math.min(requestedMax, room);
      }
      // Passthrough requests send no image data (their prompt is not recorded).
      const imageData = plan?.imageData ?? [];

      const heldFrom = performance.now();
      await session.waitForLease(signal);
      heldMs = performance.now() - heldFrom;
      const rolloutStep = options.currentStep?.();

      const generation = await generateWithContinuation({
        generate: (request) => engine.generate(imageData.length > 0 ? { ...request, imageData } : request),
        ...(gate !== undefined ? { gate } : {}),
        inputIds,
        signal,
        routingKey: sessionId,
        onEngineStart: () => session.generationStarted(),
        onEngineEnd: () => session.generationEnded(),
        decode: (ids) => tokenizer.decode(ids, { skipSpecialTokens: false }),
        bypassGate: () => session.protected || (options.bypassGate?.(session) ?? false),
        onPauseAbort: () => {
          session.recordPauseAbort(options.maxAbortedCount);
          if (options.maxAbortedCount !== undefined && session.abortCount >= options.maxAbortedCount)
            pendingProtection.add(session);
        },
        sampling: {
          maxNewTokens,
          temperature: sampling.temperature,
          topP: sampling.topP,
          topK: sampling.topK,
          stopTokenIds,
          ...(request.stop && request.stop.length > 0 ? { stop: request.stop } : {}),
          ...(options.honorResponseFormat === true && responseFormat !== undefined
            ? { extra: { json_schema: responseFormat.jsonSchema } }
            : {}),
          // The agent's own seed wins; otherwise the session's deterministic seed for this turn, if any.
          // A continuation after a pause keeps the seed (see generateWithContinuation).
          ...(request.seed !== undefined
            ? { seed: request.seed }
            : session.samplingSeedBase !== undefined
              ? { seed: session.samplingSeedBase + (plan?.turnId ?? 0) }
              : {}),
        },
      });
      heldMs += generation.heldMs;
      engineMs = generation.engineMs;
      const rid = generation.rids[0]!;
      const result = generation;
      if (result.finishReason.type === "abort") {
        signal.throwIfAborted();
        throw new GenerationAbortedError({ rid, detail: result.finishReason.message });
      }

      const finishReason = result.finishReason.type;
      const text = tokenizer.decode(result.outputIds, { skipSpecialTokens: false });
      const parsed = parseAssistantOutput({
        text,
        tools: state.tools,
        finishReason,
        toolParser: options.toolCallParser,
        reasoningParser: options.reasoningParser,
        forceReasoning: options.reasoningParser !== undefined && renderer.promptEndsInOpenThink(inputIds),
        callIdSeed: plan?.observationStateHash ?? `passthrough:${rid}`,
        ...(options.parametersAlias !== undefined ? { parametersAlias: options.parametersAlias } : {}),
      });
      forest?.commitResponse(plan!, {
        outputIds: result.outputIds,
        logprobs: result.outputLogprobs,
        finishReason,
        message: parsed.message,
        ...(result.weightVersion !== undefined ? { weightVersion: result.weightVersion } : {}),
        ...(result.weightVersionSpans !== undefined ? { weightVersionSpans: result.weightVersionSpans } : {}),
        timing: {
          wallSeconds: (performance.now() - started) / 1000,
          generationSeconds: engineMs / 1000,
        },
        metadata: {
          requestId: rid,
          // fresh / resumed / protected (docs/contract.md#cross-step-scheduling), and the session's cumulative
          // pause aborts when the turn committed.
          requestKind: generation.kind,
          ...(rolloutStep !== undefined ? { rolloutStep } : {}),
          ...(session.abortCount > 0 ? { sessionAbortCount: session.abortCount } : {}),
          requestClass,
          ...(parsed.issues.length > 0 ? { parseIssues: parsed.issues } : {}),
          // Pause/resume continuations: how often the turn was aborted, and the rid of every engine call.
          ...(generation.abortCount > 0
            ? { abortCount: generation.abortCount, requestIds: generation.rids }
            : {}),
        },
      });
      session.stats.turns++;
      session.stats.generatedTokens += result.outputIds.length;
      session.stats.engineMs += engineMs;
      const gatewayMs = performance.now() - started - heldMs - engineMs;
      session.stats.gatewayMs += gatewayMs;
      onTurn?.({
        sessionId,
        turnId: plan?.turnId ?? -1,
        transition: plan?.transition ?? "passthrough",
        classification,
        finishReason,
        promptTokens: result.promptTokens,
        completionTokens: result.completionTokens,
        cachedTokens: result.cachedTokens,
        heldMs,
        engineMs,
        gatewayMs,
        ...(parsed.issues.length > 0 ? { issues: parsed.issues } : {}),
      });
      return {
        message: parsed.message,
        finishReason: parsed.finishReason,
        usage: {
          promptTokens: result.promptTokens,
          completionTokens: result.completionTokens,
          cachedTokens: result.cachedTokens,
        },
        ...(request.logprobs
          ? { logprobs: tokenLogprobs(tokenizer, result.outputIds, result.outputLogprobs) }
          : {}),
        ...(parsed.issues.length > 0 ? { issues: parsed.issues } : {}),
      };
    } catch (error) {
      if (plan !== undefined) {
        try {
          forest?.failTurn(plan, { reason: error instanceof Error ? error.message : String(error) });
        } catch {
          // The turn may already be settled; the original error matters more.
        }
      }
      onTurn?.({
        sessionId,
        turnId: plan?.turnId ?? -1,
        transition: plan?.transition ?? "none",
        classification,
        promptTokens: plan?.promptTokens ?? 0,
        completionTokens: 0,
        heldMs,
        engineMs,
        gatewayMs: performance.now() - started - heldMs - engineMs,
        error,
      });
      // A request aborted because its session closed reads as "session discarded", not a disconnect.
      if (signal.aborted && !clientSignal.aborted)
        throw new SessionNotFoundError({ sessionId, cause: error });
      throw error;
    } finally {
      session.endRequest(controller);
    }
  };
}

const utf8 = new TextEncoder();

/**
 * Refuses, before it is tokenised, a rendered text whose size alone proves the prompt exceeds the
 * session's context. The bound: every token stands for at most `L` bytes of text, `L` = the UTF-8 length
 * of the tokenizer's longest decoded token + 1 (decoding never shortens a byte-level token's bytes, and
 * the 1 covers a SentencePiece `▁` that decodes to nothing at the start), so a text of `B` bytes is at
 * least `ceil(B / L)` tokens. The text is either the whole first prompt or dummy prefix + new messages,
 * whose delta ids are exactly the tokens of the bytes after the dummy prefix (the renderer checks that
 * the dummy ids are a token prefix), so the prompt is at least `ceil((B − S) / L)` tokens, `S` the bytes
 * of the rendered dummy prefix (at least those of the prefix cut off). The forest refuses a prompt of
 * `maxContextTokens` or more, so refusing at that bound never refuses a request the forest would take.
 *
 * @throws SessionContextLengthError (`stage: "observation"`, `promptTokens` the lower bound).
 */
async function refuseBySize(
  offload: EncodeOffload,
  renderer: ChatRenderer,
  forest: { maxContextTokens?: number | undefined; sessionId: string },
  state: Omit<ConversationState, "messages">,
  text: string,
): Promise<void> {
  const max = forest.maxContextTokens;
  if (max === undefined) return;
  const tokenBytes = (await offload.pool.maxTokenBytes) + 1;
  const bytes = Buffer.byteLength(text);
  if (Math.ceil(bytes / tokenBytes) < max) return;
  const dummyBytes = Buffer.byteLength(
    renderer.renderText(
      {
        messages: [...DUMMY_PREFIX_MESSAGES],
        tools: state.tools,
        chatTemplateKwargs: state.chatTemplateKwargs,
      },
      { addGenerationPrompt: false },
    ),
  );
  const atLeast = Math.ceil(Math.max(0, bytes - dummyBytes) / tokenBytes);
  if (atLeast < max) return;
  throw new SessionContextLengthError({
    maxContextLength: max,
    promptTokens: atLeast,
    stage: "observation",
    sessionId: forest.sessionId,
  });
}

function tokenLogprobs(
  tokenizer: TextTokenizer,
  ids: readonly number[],
  logprobs: readonly number[],
): TokenLogprob[] {
  return ids.map((id, i) => {
    const token = tokenizer.decode([id], { skipSpecialTokens: false });
    return { token, logprob: logprobs[i] ?? 0, bytes: Array.from(utf8.encode(token)) };
  });
}
