import type { ChatMessage, ConversationState, FunctionTool, TokenRenderer } from "@relax/chat";
import { sameJson } from "@relax/chat/internal";
import { buildTrainingSample } from "./build-sample";
import { computeForestStats } from "./compute-forest-stats";
import { redactionPattern } from "./drift/compare-text";
import { DEFAULT_REDACTION_MARKERS, formatHistoryEdit, type HistoryEdit } from "./drift/history-edit";
import { ExportMatchError } from "./errors/export-match-error";
import { ForestInputError } from "./errors/forest-input-error";
import { SessionContextLengthError } from "./errors/session-context-length-error";
import { StateConflictError } from "./errors/state-conflict-error";
import { UnknownStateError } from "./errors/unknown-state-error";
import { collectImageData, collectPrefix, collectPrefixArray, trainLength } from "./node/collect-prefix";
import {
  addChild,
  type ForestNode,
  type InternalNode,
  type InternalObservation,
  type InternalResponse,
  type InternalRoot,
  type Mutable,
  type ObservationNode,
  type ResponseNode,
  storeNode,
} from "./node/forest-node";
import type { SegmentKind, TrainingSample } from "./sample/training-sample";
import type {
  BeginTurnOptions,
  CommitResult,
  ExportMatch,
  ForestStats,
  ImplicitExportSegmentsOptions,
  MatchPolicy,
  SessionForestOptions,
} from "./session-forest-types";
import { type ForestSnapshot, readSnapshot, writeSnapshot } from "./snapshot/forest-snapshot";
import { type MatchContext, matchState } from "./state/match-state";
import { chainStateHash, hashConversationState, ROOT_STATE_HASH, seedStateHash } from "./state/state-hash";
import { checkNewMessages, checkState, checkSubtreeOptions } from "./turn/check-state";
import type { CommitResponseInput } from "./turn/commit-response-input";
import { detectAgentSwitch } from "./turn/detect-agent-switch";
import { placeObservation } from "./turn/place-observation";
import {
  type RenderedObservation,
  type RenderObservationOptions,
  renderObservation,
} from "./turn/render-observation";
import { turnBudget } from "./turn/turn-budget";
import type { TurnPlan, TurnRecord } from "./turn/turn-record";
import { checkCommitInput, checkMetadata } from "./turn/validate-response";

type MutableTurn = Mutable<TurnRecord> & { toleratedEdits: string[]; edits: HistoryEdit[] };

/**
 * A turn's new observation, rendered and placed but not yet stored: what {@link SessionForest.beginTurn}
 * hands to its one mutation before the turn record. It is the render request ({@link renderObservation}'s
 * parent, the observation's own messages, the subtree's tools and kwargs) plus its tokens and what the
 * forest records about it.
 */
interface NewObservation extends RenderObservationOptions {
  /** The observation's tokens, as rendered under `parent`. */
  rendered: RenderedObservation;
  /** State hash of the whole request state. */
  stateHash: string;
  /** Messages of the whole state (the lineage's plus the observation's). */
  messageCount: number;
  /** The subtree's seed, kept when the observation opens a subtree (`parent` is the root). */
  seed: string;
  /** An unanswered observation the new one replaces (it gets a `supersededBy` link). */
  supersede: InternalObservation | undefined;
  /** Whether the observation starts a new segment (then it records `resetFrom`). */
  startsSegment: boolean;
  turnId: number;
}

/**
 * The committed conversation states of one session (see docs/contract.md#sessionforest): a technical root,
 * one subtree per distinct (initial history, tools, chat_template_kwargs), observation nodes (loss 0) and
 * response nodes (generated tokens, logprobs), identified by chained state hashes.
 *
 * Each request is matched to its longest committed prefix ({@link SessionForest.beginTurn}), its new
 * messages are committed as an observation before generation, and the engine's tokens are committed as a
 * response ({@link SessionForest.commitResponse}). Any node whose lineage holds a response can be turned
 * into a training sample ({@link SessionForest.buildSample}).
 *
 * All methods are synchronous, so on JavaScript's single thread every call is atomic: concurrent
 * requests of one session interleave only between calls, and each call either commits completely or
 * throws having committed nothing.
 *
 * @example
 * ```ts
 * const forest = new SessionForest({ sessionId: "s1", renderer, maxContextTokens: 32768 });
 * const plan = forest.beginTurn(state, { maxNewTokens: 1024 });
 * // `sglang`: createSglangClient (@relax/sglang); `message`: parseAssistantOutput (@relax/chat)
 * const result = await sglang.generate({
 *   inputIds: plan.inputIds,
 *   sampling: { maxNewTokens: plan.maxNewTokens },
 * });
 * forest.commitResponse(plan, {
 *   outputIds: result.outputIds,
 *   logprobs: result.outputLogprobs,
 *   finishReason: result.finishReason.type,
 *   message,
 * });
 * const sample = forest.buildSample(forest.implicitExportLeaf().stateHash);
 * ```
 */
export class SessionForest {
  /** The session this forest records. */
  readonly sessionId: string;
  /** Rollout id every sample of the session carries (defaults to the session id). */
  readonly rolloutId: string;
  /** How edits of committed responses are treated (see {@link MatchPolicy}). */
  readonly policy: MatchPolicy;
  /** Maximum context in tokens (prompt plus generation), when limited. */
  readonly maxContextTokens?: number | undefined;
  /** Free-form JSON kept with the forest and its snapshots. */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  /** Redaction markers the tolerant policy recognises. */
  readonly redactionMarkers: readonly string[];
  readonly #renderer: TokenRenderer;
  readonly #nodes = new Map<string, InternalNode>();
  readonly #root: InternalRoot;
  readonly #turns: MutableTurn[] = [];
  readonly #context: MatchContext;
  /** The subtree seed of each first observation (a root child), computed once. */
  readonly #seeds = new WeakMap<InternalNode, string>();
  readonly #seedOf = (node: InternalNode): string => {
    let seed = this.#seeds.get(node);
    if (seed === undefined) {
      const observation = node as InternalObservation;
      seed = this.#seed(observation.tools ?? [], observation.chatTemplateKwargs ?? {});
      this.#seeds.set(node, seed);
    }
    return seed;
  };
  #latestResponse: string | undefined;
  /** The last seed computed, with copies of its tools and kwargs (a session repeats them every turn). */
  #lastSeed: { tools: unknown; chatTemplateKwargs: unknown; seed: string } | undefined;

  constructor(options: SessionForestOptions) {
    const { sessionId, renderer, policy = "tolerant", maxContextTokens, rolloutId, metadata } = options;
    if (typeof sessionId !== "string" || sessionId === "") {
      throw new ForestInputError({ path: "sessionId", reason: "must be a non-empty string" });
    }
    if (renderer === null || typeof renderer !== "object") {
      throw new ForestInputError({ path: "renderer", reason: "must implement TokenRenderer" });
    }
    if (policy !== "tolerant" && policy !== "exact") {
      throw new ForestInputError({
        path: "policy",
        reason: `must be "tolerant" or "exact", got ${JSON.stringify(policy)}`,
      });
    }
    if (maxContextTokens !== undefined && (!Number.isInteger(maxContextTokens) || maxContextTokens < 1)) {
      throw new ForestInputError({
        path: "maxContextTokens",
        reason: `must be a positive integer, got ${maxContextTokens}`,
      });
    }
    this.sessionId = sessionId;
    this.rolloutId = rolloutId ?? sessionId;
    this.policy = policy;
    this.maxContextTokens = maxContextTokens;
    this.metadata = checkMetadata(metadata, "metadata");
    this.redactionMarkers = [...(options.redactionMarkers ?? DEFAULT_REDACTION_MARKERS)];
    this.#renderer = renderer;
    this.#root = storeNode<InternalRoot>({
      kind: "root",
      stateHash: ROOT_STATE_HASH,
      parentStateHash: null,
      order: 0,
      messageCount: 0,
      tokens: new Int32Array(0),
      prefixTokens: 0,
      prefixTrainTokens: 0,
      children: [],
    });
    this.#nodes.set(ROOT_STATE_HASH, this.#root);
    this.#context = {
      nodes: this.#nodes,
      root: this.#root,
      redaction: redactionPattern(this.redactionMarkers),
    };
  }

  /** State hash of the technical root (the same for every forest). */
  get rootStateHash(): string {
    return ROOT_STATE_HASH;
  }

  /**
   * Matches a request state and commits its new messages as an observation, before generation (the
   * observation persists even if generation then fails; see docs/contract.md#sessionforest).
   *
   * The longest committed prefix with identical tools and kwargs is found in O(n) hashes; under the
   * tolerant policy benign edits of committed responses are mapped back onto them. The unmatched suffix
   * becomes an observation node, rendered with the full template under the root, or as an observation
   * delta after a response. When the match ends on an observation whose generation never committed, the
   * new observation replaces it as a sibling (its messages plus the suffix), so an observation never
   * follows an observation and the token stream stays the template's. A request equal to a committed
   * observation generates from it directly.
   *
   * @param state - a canonical state (`canonicalizeState` / the protocol layer's output).
   * @returns the plan: token prefix to send, clamped `maxNewTokens`, transition class and edits.
   * @throws ForestInputError for an empty message list, a request ending on a committed response, or bad
   *   options.
   * @throws SessionContextLengthError when the prompt leaves no room to generate (nothing committed).
   * @throws whatever the renderer throws (e.g. `ObservationDeltaError`; nothing committed).
   */
  beginTurn(state: ConversationState, options: BeginTurnOptions = {}): TurnPlan {
    const { requestId, maxNewTokens, segment } = options;
    const { messages, tools, chatTemplateKwargs } = checkState(state);
    if (maxNewTokens !== undefined && (!Number.isInteger(maxNewTokens) || maxNewTokens < 1)) {
      throw new ForestInputError({
        path: "maxNewTokens",
        reason: `must be a positive integer, got ${maxNewTokens}`,
      });
    }
    const seed = this.#seed(tools, chatTemplateKwargs);
    const match = matchState(this.#context, {
      messages,
      seed,
      tolerant: this.policy === "tolerant",
      seedOf: this.#seedOf,
    });
    const matched = match.node;
    const placement = placeObservation({
      match,
      messages,
      root: this.#root,
      parentOf: (node) => this.#parentOf(node),
      hasResponseChild: (node) => this.#hasResponseChild(node),
      // Nothing committed answered yet (a first request that failed left only an observation): still the first.
      firstRequest: this.#latestResponse === undefined,
    });
    let target = placement.target;
    const { attachTo, supersede, transition, linear, edits } = placement;

    let observation: RenderObservationOptions | undefined;
    let rendered: RenderedObservation | undefined;
    if (target === undefined) {
      checkNewMessages(messages, match.depth);
      if (attachTo!.kind === "root") checkSubtreeOptions(tools, chatTemplateKwargs);
      observation = { parent: attachTo!, messages: placement.messages, tools, chatTemplateKwargs };
      rendered = renderObservation(this.#renderer, observation);
    }
    const { promptTokens, trainPromptTokens, budget } = turnBudget({
      base: target ?? attachTo!,
      rendered,
      maxNewTokens,
      maxContextTokens: this.maxContextTokens,
      sessionId: this.sessionId,
    });

    // A new subtree after the session had responses: a new segment (compaction, reset, re-rendered fork).
    const startsSegment =
      target === undefined && attachTo!.kind === "root" && !linear && this.#latestResponse !== undefined;
    const segmentKind = startsSegment ? this.#segmentKindOf({ segment, messages, seed }) : undefined;
    // Everything below commits; nothing after this point can throw on valid state.
    const turnId = this.#turns.length;
    if (target === undefined) {
      target = this.#commitObservation({
        ...observation!,
        rendered: rendered!,
        stateHash: match.stateHash,
        messageCount: messages.length,
        seed,
        supersede,
        startsSegment,
        turnId,
      });
    }
    const record: MutableTurn = {
      turnId,
      ...(requestId !== undefined && { requestId }),
      parentStateHash: matched.stateHash,
      observationStateHash: target.stateHash,
      observationCreated: rendered !== undefined,
      requestMessages: messages.length,
      matchedMessages: match.depth,
      transition,
      linear,
      ...(segmentKind !== undefined && { segment: segmentKind }),
      toleratedEdits: match.toleratedEdits.map(formatHistoryEdit),
      edits,
      promptTokens,
      trainPromptTokens,
      observationTokens: rendered?.tokens.length ?? 0,
      ...(budget !== undefined && { maxNewTokens: budget }),
      status: "pending",
    };
    this.#turns.push(record);
    return this.#plan(record);
  }

  /**
   * The segment a turn that opens a new subtree after responses starts: `compaction` when the caller said
   * so, `agent` when the new subtree's leading system messages, tools or kwargs differ from those of the
   * subtree the session was in (the latest committed response's), else none (a plain `reset`).
   */
  #segmentKindOf(next: {
    segment: BeginTurnOptions["segment"];
    messages: readonly ChatMessage[];
    seed: string;
  }): SegmentKind | undefined {
    if (next.segment === "compaction") return "compaction";
    const previous = this.#subtreeRootOf(this.#nodes.get(this.#latestResponse!)!) as InternalObservation;
    const switched = detectAgentSwitch({
      previous: { messages: previous.messages, seed: this.#seedOf(previous) },
      next: { messages: next.messages, seed: next.seed },
    });
    return switched ? "agent" : undefined;
  }

  /**
   * Commits a new observation under `parent` (a turn's only mutation before its record): the node, its
   * subtree settings and seed when it opens a subtree (with `resetFrom` when it starts a new segment),
   * the parent's child link, and the superseded observation's link to it.
   */
  #commitObservation(input: NewObservation): InternalObservation {
    const { parent, rendered, tools, chatTemplateKwargs, seed, supersede } = input;
    const node = storeNode<InternalObservation>({
      kind: "observation",
      stateHash: input.stateHash,
      parentStateHash: parent.stateHash,
      order: this.#nodes.size,
      messageCount: input.messageCount,
      tokens: rendered.tokens,
      prefixTokens: parent.prefixTokens + parent.tokenCount,
      prefixTrainTokens: parent.prefixTrainTokens + trainLength(parent),
      children: [],
      messages: structuredClone(input.messages),
      turnId: input.turnId,
    });
    if (rendered.trainTokens !== undefined) node.trainTokens = rendered.trainTokens;
    if (rendered.media !== undefined && rendered.media.length > 0)
      node.media = structuredClone(rendered.media);
    if (parent.kind === "root") {
      node.tools = structuredClone(tools);
      node.chatTemplateKwargs = structuredClone(chatTemplateKwargs);
      this.#seeds.set(node, seed);
      // The node's copies serve as the seed cache's (no second copy of the tools per session).
      this.#lastSeed = { tools: node.tools, chatTemplateKwargs: node.chatTemplateKwargs, seed };
      // A new segment after history (compaction, new tools, a re-rendered fork): link it to where the
      // session was. The first request and a retry that supersedes an unanswered first observation are not.
      if (input.startsSegment) node.resetFrom = this.#latestResponse;
    }
    this.#nodes.set(node.stateHash, node);
    addChild(parent, node.stateHash);
    if (supersede !== undefined) supersede.supersededBy = node.stateHash;
    return node;
  }

  /**
   * Commits the engine's output for a turn as a response node under the turn's observation. The state of
   * the node is the observation's messages plus the canonical `message`; token ids and logprobs are stored
   * exactly as given (typed arrays). Re-committing the same state is idempotent (`created: false`); a
   * different generation from the same observation becomes a sibling branch.
   *
   * @throws ForestInputError for a plan not from this forest, a turn already committed to another state or
   *   marked failed, empty or invalid `outputIds`, misaligned or non-finite `logprobs`, bad weight spans.
   * @throws SessionContextLengthError when prompt plus generated tokens exceed `maxContextTokens` (nothing committed).
   * @throws StateConflictError when the state is already committed as an observation.
   */
  commitResponse(plan: TurnPlan | TurnRecord, input: CommitResponseInput): CommitResult {
    const record = this.#turnOf(plan);
    const observation = this.#nodes.get(record.observationStateHash) as InternalObservation;
    if (record.status === "failed") {
      throw new ForestInputError({ path: "plan", reason: `turn ${record.turnId} was marked failed` });
    }
    const { message, finishReason, tokens, logprobs, weightVersionSpans, timing, metadata } =
      checkCommitInput(input);
    const promptTokens = observation.prefixTokens + observation.tokenCount;
    const trainPromptTokens = observation.prefixTrainTokens + trainLength(observation);
    if (this.maxContextTokens !== undefined && trainPromptTokens + tokens.length > this.maxContextTokens) {
      throw new SessionContextLengthError({
        maxContextLength: this.maxContextTokens,
        promptTokens: trainPromptTokens,
        requestedTokens: tokens.length,
        stage: "generation",
        sessionId: this.sessionId,
      });
    }
    const stateHash = chainStateHash(observation.stateHash, message);
    if (record.status === "committed" && record.responseStateHash !== stateHash) {
      throw new ForestInputError({
        path: "plan",
        reason: `turn ${record.turnId} already committed response ${record.responseStateHash}`,
      });
    }
    const existing = this.#nodes.get(stateHash);
    if (existing !== undefined) {
      if (existing.kind !== "response") {
        throw new StateConflictError({ stateHash, existingKind: existing.kind, attemptedKind: "response" });
      }
      record.status = "committed";
      record.responseStateHash = stateHash;
      return { node: existing, created: false, transition: record.transition };
    }

    const hadResponse = this.#hasResponseChild(observation);
    const node = storeNode<InternalResponse>({
      kind: "response",
      stateHash,
      parentStateHash: observation.stateHash,
      order: this.#nodes.size,
      messageCount: observation.messageCount + 1,
      tokens,
      prefixTokens: promptTokens,
      prefixTrainTokens: trainPromptTokens,
      children: [],
      message,
      logprobs,
      finishReason,
      weightVersionSpans,
      turnId: record.turnId,
    });
    if (timing !== undefined) node.timing = timing;
    if (metadata !== undefined) node.metadata = metadata;
    this.#nodes.set(stateHash, node);
    addChild(observation, stateHash);
    delete observation.failure;
    this.#latestResponse = stateHash;
    record.status = "committed";
    record.responseStateHash = stateHash;
    if (hadResponse && record.linear) {
      record.linear = false;
      if (record.transition === "append") record.transition = "branch";
    }
    return { node, created: true, transition: record.transition };
  }

  /**
   * Answers a turn again with a response its observation already has: the request was identical to one
   * answered before (a client retry, sent after or during the first), so nothing was generated and the
   * history stays one context. The turn is committed to `responseStateHash` with `replayOf` naming the turn
   * that generated it, `transition: "append"` and `linear: true` (a replay is not a fork).
   *
   * @throws ForestInputError for a plan not from this forest, a turn not pending, or a turn whose request
   *   added messages (`observationCreated`: it is not a repeat of an answered state).
   * @throws UnknownStateError when `responseStateHash` is not a committed response of the turn's observation.
   */
  commitReplay(plan: TurnPlan | TurnRecord, responseStateHash: string): CommitResult {
    const record = this.#turnOf(plan);
    if (record.status !== "pending") {
      throw new ForestInputError({
        path: "plan",
        reason: `turn ${record.turnId} is ${record.status}, not pending`,
      });
    }
    if (record.observationCreated) {
      throw new ForestInputError({
        path: "plan",
        reason: `turn ${record.turnId} added an observation; only a repeat of an answered state is replayed`,
      });
    }
    const node = this.#nodes.get(responseStateHash);
    if (
      node === undefined ||
      node.kind !== "response" ||
      node.parentStateHash !== record.observationStateHash
    ) {
      throw new UnknownStateError({ stateHash: responseStateHash, sessionId: this.sessionId });
    }
    record.status = "committed";
    record.responseStateHash = responseStateHash;
    record.transition = "append";
    record.linear = true;
    record.replayOf = node.turnId;
    return { node, created: false, transition: record.transition };
  }

  /**
   * Records that a turn's generation failed (engine error, client disconnect, context error from the
   * engine). Its observation stays committed; a sample exported from it gets status `failed`.
   *
   * @throws ForestInputError for a plan not from this forest or a turn already committed.
   */
  failTurn(plan: TurnPlan | TurnRecord, options: { reason?: string } = {}): void {
    const record = this.#turnOf(plan);
    if (record.status === "committed") {
      throw new ForestInputError({
        path: "plan",
        reason: `turn ${record.turnId} already committed a response`,
      });
    }
    const reason = options.reason ?? "failed";
    record.status = "failed";
    record.failure = reason;
    const observation = this.#nodes.get(record.observationStateHash) as InternalObservation;
    if (!this.#hasResponseChild(observation)) observation.failure = reason;
  }

  /**
   * Builds the training sample of a committed node: lineage tokens from the root, the prompt (observations
   * before the first response), and `lossMask` / `rolloutLogProbs` over everything from the first response
   * on (1 and the rollout logprob on generated tokens, 0 on later observations). See {@link TrainingSample}.
   *
   * @throws UnknownStateError for a hash that is not committed.
   * @throws NoResponseError when the lineage holds no response.
   */
  buildSample(stateHash: string): TrainingSample {
    const lineage = this.#lineage(stateHash);
    const segmentStart = lineage.length > 1 ? this.#segmentStartOf(lineage[1]!) : undefined;
    return buildTrainingSample({
      sessionId: this.sessionId,
      rolloutId: this.rolloutId,
      lineage,
      turns: this.#turns,
      ...(segmentStart !== undefined && { segmentStart }),
    });
  }

  /**
   * Finds the committed node an explicit export record names (its canonical messages, tools and kwargs),
   * applying the forest's policy: under `tolerant`, a record whose copies of responses carry benign edits
   * still names the committed state. The node may be an observation or a response, but its lineage must
   * hold a response.
   *
   * @throws ExportMatchError `no_match` when no committed state equals the record, `no_response` when it
   *   names a state with nothing to train.
   */
  matchExportState(state: ConversationState): ExportMatch {
    const { messages, tools, chatTemplateKwargs } = checkState(state);
    const seed = this.#seed(tools, chatTemplateKwargs);
    const match = matchState(this.#context, {
      messages,
      seed,
      tolerant: this.policy === "tolerant",
      seedOf: this.#seedOf,
    });
    const node = match.node;
    if (match.depth !== messages.length || node.kind === "root") {
      const stateHash = hashConversationState({ messages, tools, chatTemplateKwargs });
      throw new ExportMatchError({
        reason: "no_match",
        message: `export state ${stateHash} is not committed in session ${this.sessionId} (the longest committed prefix covers ${match.depth} of ${messages.length} messages)`,
        sessionId: this.sessionId,
        stateHash,
        matchedMessages: match.depth,
      });
    }
    if (!this.#hasResponseLineage(node)) {
      throw new ExportMatchError({
        reason: "no_response",
        message: `export state ${node.stateHash} has no committed response on its lineage`,
        sessionId: this.sessionId,
        stateHash: node.stateHash,
      });
    }
    return { stateHash: node.stateHash, node, toleratedEdits: match.toleratedEdits.map(formatHistoryEdit) };
  }

  /**
   * The leaf an implicit export (no records) trains: there must be exactly one exportable leaf and every
   * turn of the session must have been linear (`append`, or `drift` with only tolerated edits). Implicit
   * export is reserved for audited linear history; anything else needs explicit records (see
   * docs/contract.md#export-records).
   *
   * @throws ExportMatchError `leaf_count` ("implicit export requires one committed leaf, found N") or
   *   `nonlinear`.
   */
  implicitExportLeaf(): ObservationNode | ResponseNode {
    const leaves = this.exportableLeaves();
    if (leaves.length !== 1) {
      throw new ExportMatchError({
        reason: "leaf_count",
        message: `implicit export requires one committed leaf, found ${leaves.length}${this.#describeLeaves(leaves)}`,
        sessionId: this.sessionId,
        leafCount: leaves.length,
      });
    }
    const nonlinear = this.#turns.find((turn) => !turn.linear);
    if (nonlinear !== undefined) throw this.#nonlinearError({ turn: nonlinear, leafCount: 1 });
    return leaves[0]!;
  }

  /**
   * The leaves an implicit export trains, one per segment, in the order the leaves were committed (so the
   * segment where the session ended comes last, also when it went back to an earlier agent's context; see
   * docs/contract.md#export-records and docs/contract.md#agent-contexts). A segment starts at a turn whose
   * `TurnRecord.segment` is `"compaction"` or, unless `agentContexts` is `false`, `"agent"` (an agent
   * switch). Without such a start this is `[implicitExportLeaf()]`. With them, every segment (subtree under
   * the root) that holds an exportable leaf must hold exactly one (checked first, as `implicitExportLeaf`
   * checks its leaf count first), and every other non-linear turn refuses the export; each later segment is
   * linked to the history it replaced by its first observation's `resetFrom`. The segments become sibling
   * contexts sharing the session's rollout id. With agent contexts off, an agent switch is refused as
   * `nonlinear` before any leaf count, so the message names the option.
   *
   * @throws ExportMatchError `leaf_count` (no exportable leaf, or a segment with several) or `nonlinear`
   *   (a non-linear turn that starts no segment; an agent switch when `agentContexts` is `false`).
   */
  implicitExportSegments(options: ImplicitExportSegmentsOptions = {}): Array<ObservationNode | ResponseNode> {
    const { agentContexts = true } = options;
    const startsSegment = (turn: MutableTurn): boolean =>
      turn.segment === "compaction" || (agentContexts && turn.segment === "agent");
    if (!this.#turns.some(startsSegment)) {
      // Agent contexts are off: the first agent switch is the non-linear turn to name, before any leaf count.
      const switched = this.#turns.find((turn) => turn.segment === "agent");
      if (switched !== undefined) {
        throw this.#nonlinearError({ turn: switched, leafCount: this.exportableLeaves().length });
      }
      return [this.implicitExportLeaf()];
    }
    const leaves = this.exportableLeaves();
    if (leaves.length === 0) {
      throw new ExportMatchError({
        reason: "leaf_count",
        message: "implicit export requires one committed leaf per segment, found 0",
        sessionId: this.sessionId,
        leafCount: 0,
      });
    }
    const bySegment = new Map<string, Array<ObservationNode | ResponseNode>>();
    for (const leaf of leaves) {
      const segmentRoot = this.#subtreeRootOf(leaf as InternalNode).stateHash;
      const list = bySegment.get(segmentRoot) ?? [];
      list.push(leaf);
      bySegment.set(segmentRoot, list);
    }
    const ordered: Array<ObservationNode | ResponseNode> = [];
    // Checked in subtree order (the first segment with several leaves is named), returned in leaf order.
    for (const [segmentRoot, list] of [...bySegment].sort(
      ([a], [b]) => this.#nodes.get(a)!.order - this.#nodes.get(b)!.order,
    )) {
      if (list.length !== 1) {
        const kind = this.#segmentStartOf(this.#nodes.get(segmentRoot)!);
        const name = kind === "agent" ? "agent context" : "segment";
        throw new ExportMatchError({
          reason: "leaf_count",
          message:
            `implicit export requires one committed leaf per segment, but ${name} ${segmentRoot.slice(0, 12)} has ${list.length}${this.#describeLeaves(list)}; ` +
            "write explicit export records (docs/contract.md#export-records)",
          sessionId: this.sessionId,
          leafCount: leaves.length,
        });
      }
      ordered.push(list[0]!);
    }
    ordered.sort((a, b) => a.order - b.order);
    const nonlinear = this.#turns.find((turn) => !turn.linear && !startsSegment(turn));
    if (nonlinear !== undefined) {
      throw this.#nonlinearError({ turn: nonlinear, leafCount: leaves.length, segmented: true });
    }
    return ordered;
  }

  /**
   * The `nonlinear` error naming `turn` and its fix: explicit export records, and for an agent switch the
   * export option that trains each agent as its own context (docs/contract.md#agent-contexts).
   */
  #nonlinearError({
    turn,
    leafCount,
    segmented = false,
  }: {
    turn: MutableTurn;
    leafCount: number;
    segmented?: boolean;
  }): ExportMatchError {
    const edits = turn.edits.length > 0 ? ` (${turn.edits.map(formatHistoryEdit).join(", ")})` : "";
    const where = segmented ? " between segment starts (compactions, agent switches)" : "";
    const fix =
      turn.segment === "agent"
        ? " that switched agent (new system prompt, tools or chat-template kwargs) while agent contexts are off; " +
          'train each agent as its own context (export option agentContexts: "train", --agent-contexts train) ' +
          "or write explicit export records (docs/contract.md#export-records)"
        : "; write explicit export records (docs/contract.md#export-records)";
    return new ExportMatchError({
      reason: "nonlinear",
      message: `implicit export requires strictly linear history${where}, but turn ${turn.turnId} was a ${turn.transition}${edits}${fix}`,
      sessionId: this.sessionId,
      leafCount,
    });
  }

  /**
   * How the segment whose first observation is `node` (a root child) began: the `TurnRecord.segment` of
   * the turn that committed it, or of a segment start whose unanswered observation it superseded.
   */
  #segmentStartOf(node: InternalNode): SegmentKind | undefined {
    for (const turn of this.#turns) {
      if (turn.segment === undefined) continue;
      let observation = this.#nodes.get(turn.observationStateHash);
      while (observation?.kind === "observation" && observation.supersededBy !== undefined) {
        observation = this.#nodes.get(observation.supersededBy);
      }
      if (observation === node) return turn.segment;
    }
    return undefined;
  }

  /** The first observation (a root child) of the subtree `node` belongs to. */
  #subtreeRootOf(node: InternalNode): InternalNode {
    let current = node;
    while (current.parentStateHash !== ROOT_STATE_HASH) current = this.#parentOf(current);
    return current;
  }

  /** `": <hash12> (turn N, <requestClass>), …"` for error messages; the class is `metadata.requestClass`. */
  #describeLeaves(leaves: ReadonlyArray<ObservationNode | ResponseNode>): string {
    if (leaves.length === 0) return "";
    const parts = leaves.map((leaf) => {
      const requestClass = leaf.kind === "response" ? leaf.metadata?.requestClass : undefined;
      return `${leaf.stateHash.slice(0, 12)} (turn ${leaf.turnId}, ${typeof requestClass === "string" ? requestClass : leaf.kind})`;
    });
    return `: ${parts.join(", ")}`;
  }

  /** Every leaf (node without children, root excluded), in commit order. */
  leaves(): Array<ObservationNode | ResponseNode> {
    const out: Array<ObservationNode | ResponseNode> = [];
    for (const node of this.#nodes.values()) {
      if (node.kind !== "root" && node.children.length === 0) out.push(node);
    }
    return out;
  }

  /** Leaves that could be exported: lineage holds a response, and not superseded by a retried observation. */
  exportableLeaves(): Array<ObservationNode | ResponseNode> {
    return this.leaves().filter(
      (node) =>
        this.#hasResponseLineage(node as InternalNode) &&
        !(node.kind === "observation" && node.supersededBy !== undefined),
    );
  }

  /** The committed node with this state hash, or `undefined`. */
  node(stateHash: string): ForestNode | undefined {
    return this.#nodes.get(stateHash);
  }

  /** Every node in commit order, the root first. */
  nodes(): ForestNode[] {
    return [...this.#nodes.values()];
  }

  /**
   * The nodes from the root to `stateHash`, inclusive.
   * @throws UnknownStateError for a hash that is not committed.
   */
  lineage(stateHash: string): ForestNode[] {
    return this.#lineage(stateHash);
  }

  /**
   * The committed canonical state of a node: full message history (responses as generated, not as an
   * agent later echoed them), tools and kwargs of its subtree.
   * @throws UnknownStateError for a hash that is not committed or the root.
   */
  conversationState(stateHash: string): ConversationState {
    const lineage = this.#lineage(stateHash);
    const first = lineage[1];
    if (first === undefined || first.kind !== "observation") {
      throw new UnknownStateError({ stateHash, sessionId: this.sessionId });
    }
    const messages: ChatMessage[] = [];
    for (const node of lineage) {
      if (node.kind === "observation") messages.push(...node.messages);
      else if (node.kind === "response") messages.push(node.message);
    }
    return structuredClone({
      messages,
      tools: [...(first.tools ?? [])],
      chatTemplateKwargs: { ...(first.chatTemplateKwargs ?? {}) },
    });
  }

  /** The turn log: every `beginTurn`, in order, with its outcome. */
  turns(): TurnRecord[] {
    return this.#turns.map((turn) => ({
      ...turn,
      toleratedEdits: [...turn.toleratedEdits],
      edits: [...turn.edits],
    }));
  }

  /** Counts and storage sizes. O(nodes). */
  stats(): ForestStats {
    return computeForestStats({
      nodes: this.#nodes.values(),
      turns: this.#turns,
      leaves: this.leaves().length,
      exportableLeaves: this.exportableLeaves().length,
      subtrees: this.#root.children.length,
    });
  }

  /**
   * A lossless JSON-serialisable snapshot (debug dumps, durability): options, every node in commit order
   * with its tokens and logprobs as plain arrays, and the turn log. `fromSnapshot(toSnapshot())` restores
   * an identical forest.
   */
  toSnapshot(): ForestSnapshot {
    return writeSnapshot(this, {
      latestResponse: this.#latestResponse,
      nodes: [...this.#nodes.values()],
      turns: this.#turns,
    });
  }

  /**
   * Restores a forest from {@link SessionForest.toSnapshot} output (an object or its JSON text),
   * validating its shape and recomputing every state hash.
   *
   * @throws SnapshotError naming the offending path.
   */
  static fromSnapshot(snapshot: unknown, options: { renderer: TokenRenderer }): SessionForest {
    const { snapshot: data, nodes, turns } = readSnapshot(snapshot);
    const forest = new SessionForest({
      sessionId: data.sessionId,
      renderer: options.renderer,
      policy: data.policy,
      maxContextTokens: data.maxContextTokens,
      rolloutId: data.rolloutId,
      metadata: data.metadata,
      redactionMarkers: data.redactionMarkers,
    });
    for (const node of nodes) {
      addChild(forest.#nodes.get(node.parentStateHash as string)!, node.stateHash);
      forest.#nodes.set(node.stateHash, node);
    }
    forest.#turns.push(...(turns as MutableTurn[]));
    forest.#latestResponse = data.latestResponse;
    return forest;
  }

  #seed(tools: readonly FunctionTool[], chatTemplateKwargs: ConversationState["chatTemplateKwargs"]): string {
    const last = this.#lastSeed;
    if (
      last !== undefined &&
      sameJson(last.chatTemplateKwargs, chatTemplateKwargs) &&
      sameJson(last.tools, tools)
    ) {
      return last.seed;
    }
    try {
      const seed = seedStateHash(tools, chatTemplateKwargs);
      this.#lastSeed = {
        tools: structuredClone(tools),
        chatTemplateKwargs: structuredClone(chatTemplateKwargs),
        seed,
      };
      return seed;
    } catch (error) {
      throw new ForestInputError({ path: "state", reason: (error as Error).message });
    }
  }

  #turnOf(plan: TurnPlan | TurnRecord): MutableTurn {
    const record = plan !== null && typeof plan === "object" ? this.#turns[plan.turnId] : undefined;
    if (record === undefined || record.observationStateHash !== plan.observationStateHash) {
      throw new ForestInputError({ path: "plan", reason: "is not a turn of this session forest" });
    }
    return record;
  }

  #plan(record: MutableTurn): TurnPlan {
    const nodes = this.#nodes;
    const snapshot = { ...record, toleratedEdits: [...record.toleratedEdits], edits: [...record.edits] };
    let cached: number[] | undefined;
    let cachedArray: Int32Array | undefined;
    let images: string[] | undefined;
    return Object.defineProperties(snapshot as unknown as TurnPlan, {
      inputIds: {
        enumerable: false,
        get: () => {
          cached ??= collectPrefix(nodes, record.observationStateHash, record.promptTokens);
          return cached;
        },
      },
      inputIdArray: {
        enumerable: false,
        get: () => {
          cachedArray ??= collectPrefixArray(nodes, record.observationStateHash, record.promptTokens);
          return cachedArray;
        },
      },
      imageData: {
        enumerable: false,
        get: () => {
          images ??= collectImageData(nodes, record.observationStateHash);
          return images;
        },
      },
    });
  }

  #parentOf(node: InternalNode): InternalNode {
    return this.#nodes.get(node.parentStateHash as string)!;
  }

  #hasResponseChild(node: InternalNode): boolean {
    return node.children.some((hash) => this.#nodes.get(hash)?.kind === "response");
  }

  /** A response's lineage has one; an observation's does when it follows a response (its parent). */
  #hasResponseLineage(node: InternalNode): boolean {
    if (node.kind === "response") return true;
    if (node.kind === "root") return false;
    return this.#parentOf(node).kind === "response";
  }

  #lineage(stateHash: string): InternalNode[] {
    let node = this.#nodes.get(stateHash);
    if (node === undefined) throw new UnknownStateError({ stateHash, sessionId: this.sessionId });
    const out: InternalNode[] = [];
    while (node !== undefined) {
      out.push(node);
      node = node.parentStateHash === null ? undefined : this.#nodes.get(node.parentStateHash);
    }
    return out.reverse();
  }
}
