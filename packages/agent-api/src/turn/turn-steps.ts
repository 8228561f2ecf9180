import {
  buildToolCallStructuralTag,
  type CanonicalRequest,
  type ChatRenderer,
  type ConversationState,
  type ParseIssue,
  reasoningStart,
  structuralTagReasoningParsers,
  type TextTokenizer,
  type TokenLogprob,
} from "@relax/chat";
import { DUMMY_PREFIX_MESSAGES } from "@relax/chat/internal";
import { SessionContextLengthError, SessionForest, type TurnPlan } from "@relax/forest";
import type { ResponseFormatConstraint } from "@relax/protocol";
import type { SamplingParams } from "@relax/sglang";
import type { EncodeOffload } from "../encode/encode-offload";
import type { RequestClass, RequestClassPolicy } from "../request-class/classify-request";
import type { GatewaySession } from "../session/gateway-session";
import type { ContinuedGeneration } from "./generate-with-continuation";

/**
 * The forest a request of `requestClass` is recorded in, by its class policy: `main` with `train` → the
 * session's forest; another class with `train` or `record` → the session's side forest of that class
 * (created on first use with the main forest's renderer policy, rollout id and context limit,
 * `metadata.requestClass` and `metadata.policy` set; a `train` side forest is exported as side contexts,
 * docs/contract.md#side-contexts); `passthrough` → none (`undefined`: generated, not recorded).
 */
export function selectTurnForest(
  session: GatewaySession,
  requestClass: RequestClass,
  policy: RequestClassPolicy,
  renderer: ChatRenderer,
): SessionForest | undefined {
  if (policy === "train" && requestClass === "main") return session.forest;
  if (policy === "passthrough") return undefined;
  let forest = session.sideForests.get(requestClass);
  if (forest === undefined) {
    forest = new SessionForest({
      sessionId: session.id,
      renderer,
      policy: session.forest.policy,
      rolloutId: session.forest.rolloutId,
      ...(session.forest.maxContextTokens !== undefined
        ? { maxContextTokens: session.forest.maxContextTokens }
        : {}),
      metadata: { requestClass, policy },
    });
    session.sideForests.set(requestClass, forest);
  }
  return forest;
}

/**
 * The parent turn of a side request: the state hash of the main forest's last committed response
 * (for a sub-agent, the turn whose tool call started it); `undefined` when the main loop has none yet.
 */
export function lastMainResponse(session: Pick<GatewaySession, "forest">): string | undefined {
  const turns = session.forest.turns();
  for (let i = turns.length - 1; i >= 0; i--) {
    const hash = turns[i]!.responseStateHash;
    if (turns[i]!.status === "committed" && hash !== undefined) return hash;
  }
  return undefined;
}

/** A turn's prompt as sent to the engine: see {@link planTurnPrompt}. */
export interface TurnPrompt {
  /** The forest's turn plan; absent for a passthrough request (nothing recorded). */
  plan?: TurnPlan;
  /** The prompt token ids (the lineage's for a recorded turn, the fresh render for a passthrough). */
  inputIds: ArrayLike<number>;
  /** Max new tokens of the engine call (the request's budget, capped by the context room). */
  maxNewTokens: number;
}

/** Inputs of {@link planTurnPrompt}. */
export interface PlanTurnPromptOptions {
  session: GatewaySession;
  /** From {@link selectTurnForest}; `undefined` is a passthrough request. */
  forest: SessionForest | undefined;
  state: ConversationState;
  /** The turn's budget in tokens: `min(request max_tokens, --rollout-max-response-len)`. */
  requestedMax: number;
  renderer: ChatRenderer;
  offload?: EncodeOffload | undefined;
  signal: AbortSignal;
}

/**
 * Plans a turn's prompt. A recorded turn calls `forest.beginTurn` (the observation is committed before
 * generation; the first train turn after a compaction starts a `compaction` segment and clears
 * `session.compactedSinceTrain`), in the encode pool when `offload` is set (a text whose size alone exceeds
 * the context is refused before tokenising, see {@link refuseBySize}). A passthrough request is rendered
 * and its budget capped by the room left in the session's context.
 *
 * @throws SessionContextLengthError (`stage: "observation"`) when the prompt leaves no room; whatever
 *   `beginTurn` throws (`ForestInputError`, `ChatTemplateError`, …).
 */
export async function planTurnPrompt(options: PlanTurnPromptOptions): Promise<TurnPrompt> {
  const { session, forest, state, requestedMax, renderer, offload, signal } = options;
  if (forest === undefined) {
    // passthrough: rendered, generated and answered; nothing is recorded.
    const inputIds = renderer.renderPrompt(state);
    const room = (session.forest.maxContextTokens ?? Number.POSITIVE_INFINITY) - inputIds.length;
    if (room < 1) {
      throw new SessionContextLengthError({
        maxContextLength: session.forest.maxContextTokens!,
        promptTokens: inputIds.length,
        stage: "observation",
        sessionId: session.id,
      });
    }
    return { inputIds, maxNewTokens: Math.min(requestedMax, room) };
  }
  const segmentStart = forest === session.forest && session.compactedSinceTrain;
  const begin = () =>
    forest.beginTurn(state, {
      maxNewTokens: requestedMax,
      ...(segmentStart ? { segment: "compaction" as const } : {}),
    });
  const plan =
    offload === undefined
      ? begin()
      : await offload.run(begin, {
          signal,
          check: (text) => refuseBySize(offload, renderer, forest, state, text),
          ...(forest.maxContextTokens !== undefined ? { maxContextTokens: forest.maxContextTokens } : {}),
          tooLarge: (atLeast) => {
            throw new SessionContextLengthError({
              maxContextLength: forest.maxContextTokens ?? atLeast,
              promptTokens: atLeast,
              stage: "observation",
              sessionId: session.id,
            });
          },
        });
  if (segmentStart) session.compactedSinceTrain = false;
  return { plan, inputIds: plan.inputIdArray, maxNewTokens: plan.maxNewTokens ?? requestedMax };
}

/** Inputs of {@link turnSamplingParams}. */
export interface TurnSamplingInput {
  sampling: { temperature: number; topP: number; topK: number };
  maxNewTokens: number;
  stopTokenIds: number[];
  /** The request's stop strings, seed and tools (no tools: none declared). */
  canonicalRequest: Pick<CanonicalRequest, "stop" | "seed"> & { tools?: CanonicalRequest["tools"] };
  /** `--honor-response-format`, and the request's format if it asked for one. */
  honorResponseFormat: boolean;
  responseFormat?: ResponseFormatConstraint | undefined;
  /** `--agentic-tool-call-parser`: the call syntax of the `structural_tag` (see {@link responseConstraint}). */
  toolCallParser?: string | undefined;
  /** `--agentic-reasoning-parser`: whether the `structural_tag` allows a leading `<think>` block. */
  reasoningParser?: string | undefined;
  /**
   * The end of the turn's prompt, decoded with special tokens (its generation prompt at least); read only
   * when a `structural_tag` is built, to tell whether the template opened or closed a `<think>` block.
   */
  promptTail?: (() => string) | undefined;
  /** The session's deterministic seed base (`seed = base + turnId`), if any. */
  samplingSeedBase?: number | undefined;
  /** The planned turn's id (0 for a passthrough). */
  turnId: number;
}

/**
 * The sampling of a turn's engine call: the rollout's temperature/top-p/top-k (the agent's are ignored),
 * the tokenizer's stop ids, the request's stop strings, the structured-output constraint when honoured
 * ({@link responseConstraint}), and the seed — the agent's own wins, else `samplingSeedBase + turnId`,
 * else none.
 */
export function turnSamplingParams(input: TurnSamplingInput): SamplingParams & { maxNewTokens: number } {
  const { canonicalRequest } = input;
  const constraint = responseConstraint(input);
  return {
    maxNewTokens: input.maxNewTokens,
    temperature: input.sampling.temperature,
    topP: input.sampling.topP,
    topK: input.sampling.topK,
    stopTokenIds: input.stopTokenIds,
    ...(canonicalRequest.stop && canonicalRequest.stop.length > 0 ? { stop: canonicalRequest.stop } : {}),
    ...(constraint !== undefined ? { extra: constraint } : {}),
    // The agent's own seed wins; otherwise the session's deterministic seed for this turn, if any.
    // A continuation after a pause keeps the seed (see generateWithContinuation).
    ...(canonicalRequest.seed !== undefined
      ? { seed: canonicalRequest.seed }
      : input.samplingSeedBase !== undefined
        ? { seed: input.samplingSeedBase + input.turnId }
        : {}),
  };
}

/**
 * The SGLang constraint of a turn whose request asked for a response format (docs/contract.md, "Structured
 * output"), or `undefined` when there is none to send:
 * - format honoured, and the turn cannot call a tool (no tools, or `tool_choice` `"none"`): `json_schema`;
 * - with tools the model may call: a `structural_tag` that allows EITHER tool calls in the tool-call
 *   parser's syntax (arguments constrained by each tool's parameters) OR the answer in the schema
 *   (`buildToolCallStructuralTag`), so that the model can still call a tool under real constrained decoding;
 * - with tools and a tool-call parser (or reasoning parser) the tag cannot be written for, or no parser at
 *   all: nothing — such turns, the final answer included, are unconstrained (never `json_schema`, which
 *   would forbid the tool calls).
 */
export function responseConstraint(
  input: Pick<
    TurnSamplingInput,
    | "honorResponseFormat"
    | "responseFormat"
    | "canonicalRequest"
    | "toolCallParser"
    | "reasoningParser"
    | "promptTail"
  >,
): { json_schema: string } | { structural_tag: string } | undefined {
  const { responseFormat } = input;
  if (!input.honorResponseFormat || responseFormat === undefined) return undefined;
  const tools = responseFormat.toolChoiceNone === true ? [] : (input.canonicalRequest.tools ?? []);
  const { reasoningParser } = input;
  const promptTail = reasoningParser === undefined ? "" : (input.promptTail?.() ?? "");
  // Without tools the schema alone, unless the output starts inside a reasoning block (the prompt opened
  // `<think>`, or the parser always reasons): `json_schema` would forbid the block the parser then expects.
  const startsInReasoning =
    reasoningParser !== undefined &&
    structuralTagReasoningParsers.includes(reasoningParser) &&
    reasoningStart(reasoningParser, promptTail) === "opened";
  if (tools.length === 0 && !startsInReasoning) return { json_schema: responseFormat.jsonSchema };
  if (tools.length > 0 && input.toolCallParser === undefined) return undefined;
  const tag = buildToolCallStructuralTag({
    toolCallParser: input.toolCallParser,
    tools,
    responseSchema: JSON.parse(responseFormat.jsonSchema) as Record<string, unknown>,
    reasoningParser,
    promptTail,
  });
  return tag === undefined ? undefined : { structural_tag: JSON.stringify(tag) };
}

/** Inputs of {@link turnCommitMetadata}. */
export interface TurnCommitMetadataInput {
  generation: Pick<ContinuedGeneration, "kind" | "abortCount" | "rids" | "engineFaults">;
  requestClass: RequestClass;
  /** The train step when the turn's generation began, if known. */
  rolloutStep?: number | undefined;
  /** The session's cumulative pause aborts when the turn committed. */
  sessionAbortCount: number;
  issues: readonly ParseIssue[];
  /** A side-forest turn's parent turn: the main forest's last committed response when it began. */
  parentStateHash?: string | undefined;
}

/**
 * The metadata recorded with a committed turn: the first rid, the request kind (fresh / resumed /
 * protected, docs/contract.md#cross-step-scheduling), `rolloutStep` and the session's pause aborts when
 * known and non-zero, the request class, a side turn's `parentStateHash`, the parse issues if any, and — for a turn a pause continued —
 * its abort count and the rid of every engine call.
 */
export function turnCommitMetadata(input: TurnCommitMetadataInput): Record<string, unknown> {
  const { generation, rolloutStep, sessionAbortCount, issues } = input;
  return {
    requestId: generation.rids[0]!,
    requestKind: generation.kind,
    ...(rolloutStep !== undefined ? { rolloutStep } : {}),
    ...(sessionAbortCount > 0 ? { sessionAbortCount } : {}),
    requestClass: input.requestClass,
    ...(input.parentStateHash !== undefined ? { parentStateHash: input.parentStateHash } : {}),
    ...(issues.length > 0 ? { parseIssues: issues } : {}),
    ...(generation.abortCount > 0 ? { abortCount: generation.abortCount, requestIds: generation.rids } : {}),
    // Engine failures the turn was held through (docs/contract.md#engine-failures).
    ...(generation.engineFaults > 0
      ? { engineFaults: generation.engineFaults, requestIds: generation.rids }
      : {}),
  };
}

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
export async function refuseBySize(
  offload: Pick<EncodeOffload, "pool">,
  renderer: Pick<ChatRenderer, "renderText">,
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

const utf8 = new TextEncoder();

/** The per-token logprobs of an answer (`logprobs: true`): each id decoded alone, its UTF-8 bytes. */
export function tokenLogprobs(
  tokenizer: Pick<TextTokenizer, "decode">,
  ids: readonly number[],
  logprobs: readonly number[],
): TokenLogprob[] {
  return ids.map((id, i) => {
    const token = tokenizer.decode([id], { skipSpecialTokens: false });
    return { token, logprob: logprobs[i] ?? 0, bytes: Array.from(utf8.encode(token)) };
  });
}
