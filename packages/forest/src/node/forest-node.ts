import type { AssistantMessage, ChatMessage, ChatTemplateKwargs, FunctionTool, MediaItem } from "@relax/chat";
import type { WeightVersionSpan } from "../sample/training-sample";
import { packTokens, type TokenStore, unpackTokens } from "./token-store";

/** Engine finish reason of a committed response (SGLang `meta_info.finish_reason.type`). */
export type ResponseFinishReason = "stop" | "length" | "abort";

/** Wall-clock timing of one turn, in seconds. */
export interface TurnTiming {
  /** Whole request, as the gateway measured it. */
  wallSeconds?: number | undefined;
  /** Part spent waiting for the engine. */
  generationSeconds?: number | undefined;
}

/** Fields every node has. Nodes are immutable once committed, except the bookkeeping noted per kind. */
interface ForestNodeBase {
  /** Chained state hash of the full state this node represents (64 hex digits). */
  readonly stateHash: string;
  /** The node this one extends; `null` only for the technical root. */
  readonly parentStateHash: string | null;
  /** Commit order within the session (root 0); snapshots preserve it. */
  readonly order: number;
  /** Messages in the full state (root 0). */
  readonly messageCount: number;
  /**
   * Token ids this node adds to its lineage (its delta). The forest keeps them packed (16 bits per id
   * where they fit, see `token-store.ts`): reading this unpacks them into a fresh `Int32Array`, or gives
   * the stored one when the delta is kept unpacked (never mutate it). Read it once per use, not per id.
   */
  readonly tokens: Int32Array;
  /** Tokens on the lineage before this node (sum of the ancestors' deltas). */
  readonly prefixTokens: number;
  /**
   * Training tokens on the lineage before this node: like `prefixTokens`, with each image counted at its
   * processor-expanded length (equal to `prefixTokens` for text-only lineages).
   */
  readonly prefixTrainTokens: number;
  /** State hashes of the children, in commit order. */
  readonly children: readonly string[];
}

/** The technical root: the empty state every subtree hangs under. Holds no messages and no tokens. */
export interface RootNode extends ForestNodeBase {
  readonly kind: "root";
  readonly parentStateHash: null;
}

/**
 * New system / user / tool messages and their rendered token delta (loss 0). Its parent is the root (a
 * subtree's first observation, rendered with the full chat template) or a response (rendered as an
 * observation delta after it); an observation never follows an observation.
 */
export interface ObservationNode extends ForestNodeBase {
  readonly kind: "observation";
  /** Messages this node adds (its delta), canonical. */
  readonly messages: readonly ChatMessage[];
  /** Canonical tools of the subtree; set only on a subtree's first observation (child of the root). */
  readonly tools?: readonly FunctionTool[];
  /** Canonical chat-template kwargs of the subtree; set only on a subtree's first observation. */
  readonly chatTemplateKwargs?: ChatTemplateKwargs;
  /**
   * For a subtree started after the session had responses (a `reset` such as compaction, or a fork that
   * re-renders history from the first message): the state the session had reached before it (its latest
   * committed response), linking the two segments.
   */
  readonly resetFrom?: string | undefined;
  /** Turn that created it. */
  readonly turnId: number;
  /**
   * Training ids of this delta when its messages carry images: `tokens` with each image placeholder
   * expanded as the model's processor expands it. Absent for text observations (training ids = `tokens`).
   */
  readonly trainTokens?: Int32Array;
  /** The images this observation added, in prompt order (`multimodal_train_inputs` of its delta). */
  readonly media?: readonly MediaItem[];
  /**
   * Set when a later request extended this observation's messages before any response was committed to
   * it (its generation failed): the sibling observation that replaced it. Superseded leaves are not
   * implicit-export candidates.
   */
  readonly supersededBy?: string;
  /** Why the last generation from this observation failed (`failTurn`), if it did. */
  readonly failure?: string;
}

/**
 * One generation: the token ids exactly as the engine returned them (stop token included), their rollout
 * logprobs, and the parsed canonical assistant message. Its state is the parent's messages plus `message`.
 */
export interface ResponseNode extends ForestNodeBase {
  readonly kind: "response";
  /** The canonical assistant message parsed from `tokens`. */
  readonly message: AssistantMessage;
  /**
   * Rollout logprob (natural log) of each token in `tokens`, 1:1, exactly as given. A `Float32Array` when
   * every value is a float32 value (SGLang's are: half the bytes, read back bit-identical), else a
   * `Float64Array`. Never mutate.
   */
  readonly logprobs: Float32Array | Float64Array;
  readonly finishReason: ResponseFinishReason;
  /** Weight versions over this node's tokens, `[start, end)` in node-local token coordinates. */
  readonly weightVersionSpans: readonly WeightVersionSpan[];
  /** Turn that committed it. */
  readonly turnId: number;
  readonly timing?: TurnTiming;
  /** Free-form JSON metadata given at commit (engine counters, routing info). */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** Any node of a {@link SessionForest}. */
export type ForestNode = RootNode | ObservationNode | ResponseNode;

/** Mutable shapes used inside the package; the public types are their read-only views. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
/** How a node keeps its `tokens` (a getter on the nodes' prototype reads them back). */
interface StoredTokens {
  readonly tokens: Int32Array;
  /** The packed ids (see {@link packTokens}). */
  readonly tokenStore: TokenStore;
  /** Number of ids (`tokens.length`, without unpacking). */
  readonly tokenCount: number;
}
type Internal<T> = Omit<Mutable<T>, "tokens"> & StoredTokens & { children: string[] };
export type InternalRoot = Internal<RootNode>;
export type InternalObservation = Internal<ObservationNode>;
export type InternalResponse = Internal<ResponseNode>;
export type InternalNode = InternalRoot | InternalObservation | InternalResponse;

/** The prototype of every node: `tokens` unpacks `tokenStore`. */
const NODE_PROTOTYPE = Object.defineProperty({}, "tokens", {
  get(this: StoredTokens): Int32Array {
    return unpackTokens(this.tokenStore, this.tokenCount);
  },
  enumerable: false,
  configurable: false,
});

/**
 * A node from its fields: `tokens` is packed into `tokenStore` (its count in `tokenCount`) and read back
 * through the nodes' prototype, so that a node keeps its ids once, at 2 bytes per id where they fit.
 */
export function storeNode<T extends InternalNode>(
  fields: Omit<T, "tokenStore" | "tokenCount" | "tokens"> & { tokens: Int32Array },
): T {
  const { tokens, ...rest } = fields;
  const node: Record<string, unknown> = Object.assign(Object.create(NODE_PROTOTYPE), rest);
  node.tokenStore = packTokens(tokens);
  node.tokenCount = tokens.length;
  return node as unknown as T;
}

/**
 * Appends `stateHash` to `node.children` as a new exact-size array. `push` on an empty array reserves
 * 17 slots (≈ 150 B), where a node has one child in a linear session: 8 B per child instead.
 */
export function addChild(node: InternalNode, stateHash: string): void {
  node.children = node.children.length === 0 ? [stateHash] : [...node.children, stateHash];
}
