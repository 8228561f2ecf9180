/**
 * The page model of `relax view`: everything the page shows, as plain JSON (embedded in the HTML page and
 * read by its client script). Built by {@link buildViewModel} from debug dumps and training-row files.
 */

/** A chat message as shown: role, text, and the structured extras (tool calls, reasoning). */
export interface ViewMessage {
  role: string;
  /** Text content (multi-part content joined; images as `[image]`). */
  text: string;
  reasoning?: string;
  /** Tool calls as `name(arguments)`. */
  toolCalls?: string[];
  /** `tool_call_id` of a tool message. */
  toolCallId?: string;
}

/** One committed node of a session's forest, as a tree item. */
export interface TreeNodeView {
  stateHash: string;
  /** Parent state hash; `null` for a subtree's first observation (child of the technical root). */
  parent: string | null;
  kind: "observation" | "response";
  turnId: number;
  /** Depth in the tree (subtree roots are 0). */
  depth: number;
  /** Child state hashes in commit order. */
  children: string[];
  tokenCount: number;
  prefixTokens: number;
  messages: ViewMessage[];
  finishReason?: "stop" | "length" | "abort";
  /** Transition class of the turn that created (observation) or committed (response) the node. */
  transition?: "append" | "branch" | "drift" | "reset";
  /** Observation only: tolerated drift edits of the request that created it, as `"<kind>@<path>"`. */
  toleratedEdits: string[];
  /** Reset / compaction link: the state the session had reached before this subtree. */
  resetFrom?: string;
  supersededBy?: string;
  failure?: string;
  leaf: boolean;
  /** Context ids (see {@link ContextView.id}) this node was exported as. */
  exportedAs: string[];
  /** Context names (`null` for implicit) this node was exported as. */
  exportedNames: (string | null)[];
  /** For a leaf that was not exported: why (superseded, failed generation, Group dropped, not named). */
  notExportedReason?: string;
}

/** One request of a session: its transition class and edits. */
export interface TurnView {
  turnId: number;
  requestId?: string;
  transition: "append" | "branch" | "drift" | "reset";
  linear: boolean;
  toleratedEdits: string[];
  /** Every edit of committed responses in the request as `"<kind>@<path>"` (tolerated or not). */
  edits: string[];
  status: "pending" | "committed" | "failed";
  failure?: string;
  requestMessages: number;
  matchedMessages: number;
  promptTokens: number;
  observationStateHash: string;
  responseStateHash?: string;
}

/** Two histories of one session side by side, with the first place they differ. */
export interface DiffView {
  id: string;
  sessionId: string;
  left: { stateHash: string; messages: ViewMessage[] };
  right: { stateHash: string; messages: ViewMessage[] };
  /** Index of the first differing message (`-1` when one history is a prefix of the other). */
  firstDifferentMessage: number;
  /** Field path of the first difference inside that message, e.g. `messages[3].content`. */
  firstDifferentField: string | null;
}

/** The session forest as the session view shows it. */
export interface ForestView {
  nodes: TreeNodeView[];
  turns: TurnView[];
  /** Counts by node kind. */
  observationCount: number;
  responseCount: number;
  diffs: DiffView[];
}

/** One session of a Group. */
export interface SessionView {
  /** `<step>/<session id>`, unique in the page. */
  id: string;
  sessionId: string;
  step: string;
  groupIndex: number;
  slot: number;
  /** Context ids exported from this session (empty when the Group was dropped before planning). */
  contextIds: string[];
  /** Primary reward of the first context (`null` when none). */
  reward: number | null;
  advantage: number | null;
  turnCount: number;
  /** Transition classes of the session's turns, counted. */
  transitions: Record<string, number>;
  weightVersions: string[];
  /** Drop reason of this session when it could not be finalised. */
  dropReason?: string;
  dropMessage?: string;
  /** Present when the dump carried the session's forest. */
  forest?: ForestView;
  /**
   * The prompt the agent sent: the messages of the session's first request (from the forest), else the
   * decoded prompt of its first context (`promptText`). Absent for rows files.
   */
  prompt?: ViewMessage[];
  promptText?: string;
  /** Export metadata of the first context: the dataset's metadata (e.g. the expected `answer`) and the agent's. */
  metadata?: Record<string, unknown>;
  /** Reward components of the first context (`reward_details`), when there are any. */
  rewardDetails?: Record<string, number>;
  /**
   * Where the first context's reward came from, in words (from the dump's `reward_source`, e.g.
   * `agent output: output.reward`); absent for rows files and older dumps.
   */
  rewardSource?: string;
  /** How the first context's advantage was assigned, in words (the dump's `advantage_source`). */
  advantageSource?: string;
  /** The agent's final reply: the message of the node its first context was exported from (from the forest). */
  output?: ViewMessage;
  /**
   * Request classes the session's requests fell into (apps/gateway/README.md#request-classes): `main`
   * (policy `train`, the forest above) and the class of every side forest (policy `record` or `train`). A
   * `passthrough` request is not recorded, so it is not listed.
   */
  requestClasses: string[];
  /** Side requests (title, compaction, sub-agent …) by request class, in dump order: recorded or trained. */
  sideForests: SideForestView[];
  /** The last lines of the agent's log (stdout and stderr), when the viewer was given the session logs. */
  logTail?: string;
}

/**
 * One side forest of a session: requests of one non-`main` request class, recorded (`record`) or trained
 * as side contexts (`train`: some leaf was exported; docs/contract.md#side-contexts).
 */
export interface SideForestView {
  requestClass: string;
  /** How the gateway handled the class, as the dump shows it. */
  policy: "record" | "train";
  forest: ForestView;
}

/** One turn of an exported context, in token coordinates of the whole row. */
export interface StripTurn {
  turnIndex: number;
  turnId?: number;
  /** `[start, end)` of the observation delta before this turn's generation (empty for the first turn). */
  observation: [number, number];
  /** `[start, end)` of the generated tokens. */
  generated: [number, number];
  finishReason: "stop" | "length" | "abort";
  transition: "append" | "branch" | "drift" | "reset";
  toleratedEdits: string[];
  weightVersion?: string;
  /** The new messages of the request, when the dump carried the forest. */
  request?: ViewMessage[];
  /** The reply as parsed, when the dump carried the forest. */
  reply?: ViewMessage;
}

/** One image of a row, placed on its run of image-pad tokens. */
export interface ContextImage {
  /** A `data:` URL the page can show (offline pages load nothing else), absent for an http(s) source. */
  src?: string;
  /** The http(s) URL of an image the page does not load. */
  url?: string;
  format?: string;
  width?: number;
  height?: number;
  /** `[start, end)` of its image-pad tokens in row coordinates (`end - start` = its `num_tokens`). */
  start: number;
  end: number;
}

/** One exported row (context) as a token strip. */
export interface ContextView {
  /** `<step>/<session>/<index>`, unique in the page. */
  id: string;
  step: string;
  sessionId: string;
  /** {@link SessionView.id} of the session it was exported from. */
  sessionKey: string;
  groupIndex: number;
  name: string | null;
  stateHash: string;
  status: string;
  reward: number | null;
  advantage: number | null;
  /** Where the reward came from, in words (see {@link SessionView.rewardSource}); dumps only. */
  rewardSource?: string;
  /** How the advantage was assigned, in words; dumps only. */
  advantageSource?: string;
  /** Token ids of the whole row. */
  tokens: number[];
  promptLength: number;
  /** Per token of the row (the prompt part is 0): 1 where the token was generated and trained on. */
  lossMask: number[];
  /** Per token of the row (the prompt part is 0): rollout logprob (natural log). */
  logprobs: number[];
  /** Weight-version spans in row coordinates. */
  weightVersionSpans: { version: string; start: number; end: number }[];
  /** Row positions right after a generation the engine aborted. */
  abortPoints: number[];
  turns: StripTurn[];
  /** The row's images (`multimodal_train_inputs`) on their pad-token runs; empty for a text row. */
  images: ContextImage[];
}

/** One sampled Group of a step. */
export interface GroupView {
  step: string;
  index: number;
  outcome: "exported" | "dropped" | "filtered";
  reason?: string;
  message?: string;
  /** {@link SessionView.id}s in slot order. */
  sessionIds: string[];
  contextIds: string[];
  rewardMean: number | null;
}

/** One step (one dump or rows file). */
export interface StepView {
  id: string;
  /** File the step was read from. */
  source: string;
  kind: "dump" | "rows";
  mode: string;
  groups: GroupView[];
  /** Dropped / filtered Groups counted by reason. */
  dropsByReason: Record<string, number>;
  weightVersions: string[];
}

/** The whole page. */
export interface ViewModel {
  title: string;
  steps: StepView[];
  sessions: SessionView[];
  contexts: ContextView[];
  /** Decoded text of every token id on the page (specials kept); absent ids are shown as `#id`. */
  vocab: Record<string, string>;
}
