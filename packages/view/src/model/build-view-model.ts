import type { TrainingRow } from "@relax/export";
import type { ViewDebugDump } from "../input/debug-dump-schema";
import type { ViewSource } from "../input/parse-view-source";
import { buildContextView } from "./build-context-view";
import { buildForestView } from "./build-forest-view";
import type { GroupView, SessionView, StepView, TreeNodeView, ViewModel } from "./view-model";

/** Options of {@link buildViewModel}. */
export interface BuildViewModelOptions {
  /** Parsed inputs, one step each, in order. */
  sources: readonly ViewSource[];
  /**
   * Text of one token id (special tokens kept), e.g. `(id) => tokenizer.decode([id], { skipSpecialTokens: false })`.
   * Called once per distinct id. Without it the page shows ids (`#151644`).
   */
  decodeToken?: (id: number) => string;
  /** @default "relax view" */
  title?: string;
  /**
   * The tail of a session's agent log (e.g. the last lines of `<--session-log-dir>/<session id>.log`), or
   * `undefined` when there is none; called once per session. Shown in the session view.
   */
  sessionLog?: (sessionId: string) => string | undefined;
}

/**
 * Builds the page model from debug dumps and training-rows files: steps with their Groups (outcome,
 * drop reason, mean reward), drops by reason and weight versions; sessions with rewards, advantages,
 * transition classes and, when the dump carries it, the forest tree; every exported context as a token
 * strip; and the decoded text of every distinct token id.
 */
export function buildViewModel(options: BuildViewModelOptions): ViewModel {
  const { sources, decodeToken, sessionLog, title = "relax view" } = options;
  const model: ViewModel = { title, steps: [], sessions: [], contexts: [], vocab: {} };
  const stepIds = new Set<string>();
  for (const source of sources) {
    // Steps are named by their id; two inputs of the same step (e.g. two runs) are told apart by file name.
    let id = source.kind === "dump" ? source.dump.rollout_id : source.name;
    if (stepIds.has(id)) id = `${id} (${source.name})`;
    stepIds.add(id);
    if (source.kind === "dump") addDump(model, id, source.name, source.dump);
    else addRows(model, id, source.name, source.rows);
  }
  if (sessionLog !== undefined) {
    for (const session of model.sessions) {
      const tail = sessionLog(session.sessionId);
      if (tail !== undefined) session.logTail = tail;
    }
  }
  if (decodeToken !== undefined) {
    for (const context of model.contexts) {
      for (const token of context.tokens) {
        const key = String(token);
        if (!(key in model.vocab)) model.vocab[key] = decodeToken(token);
      }
    }
  }
  return model;
}

type DumpGroup = ViewDebugDump["groups"][number];
type DumpSession = NonNullable<DumpGroup["sessions"]>[number];
type DumpSample = DumpGroup["samples"][number];

/** Adds a debug dump's step: its Groups (in index order), their sessions and contexts. */
function addDump(model: ViewModel, step: string, source: string, dump: ViewDebugDump): void {
  const view: StepView = {
    id: step,
    source,
    kind: "dump",
    mode: dump.mode,
    groups: [],
    dropsByReason: {},
    weightVersions: [],
  };
  for (const group of dump.groups) addDumpGroup(model, view, step, group);
  // The dump lists Groups in the order they finished; the page shows them by index (sortable otherwise).
  view.groups.sort((a, b) => a.index - b.index);
  model.steps.push(view);
}

/**
 * Adds one dumped Group to its step `view`: the Group's view (outcome, drop reason, mean reward), its
 * sessions in slot order (forests, contexts, dropped sessions) and its contexts to `model`.
 */
function addDumpGroup(model: ViewModel, view: StepView, step: string, group: DumpGroup): void {
  const groupView: GroupView = {
    step,
    index: group.group_index,
    outcome: group.outcome,
    sessionIds: [],
    contextIds: [],
    rewardMean: null,
  };
  if (group.reason !== undefined) {
    groupView.reason = group.reason;
    view.dropsByReason[group.reason] = (view.dropsByReason[group.reason] ?? 0) + 1;
  }
  if (group.message !== undefined) groupView.message = group.message;
  const sessions = new Map<string, SessionView>();
  const session = (sessionId: string, slot: number): SessionView => {
    let found = sessions.get(sessionId);
    if (found === undefined) {
      found = newSessionView(step, group.group_index, sessionId, slot);
      sessions.set(sessionId, found);
    }
    return found;
  };
  // Sessions in slot order: the forest section lists them all; samples and drops add any it lacks.
  for (const dumped of group.sessions ?? []) session(dumped.session_id, dumped.slot);
  const contextIdsByHash = new Map<string, Map<string, string[]>>();
  for (const sample of group.samples) {
    const owner = session(sample.session_id, sample.slot);
    const id = `${owner.id}/${owner.contextIds.length}`;
    owner.contextIds.push(id);
    const byHash = contextIdsByHash.get(sample.session_id) ?? new Map<string, string[]>();
    byHash.set(sample.state_hash, [...(byHash.get(sample.state_hash) ?? []), id]);
    contextIdsByHash.set(sample.session_id, byHash);
  }
  const forestNodes = new Map<string, Map<string, TreeNodeView>>();
  for (const dumped of group.sessions ?? []) {
    const owner = session(dumped.session_id, dumped.slot);
    addSessionForests(owner, dumped, step, group, contextIdsByHash.get(dumped.session_id) ?? new Map());
    forestNodes.set(dumped.session_id, new Map(owner.forest!.nodes.map((node) => [node.stateHash, node])));
  }
  const counters = new Map<string, number>();
  for (const sample of group.samples) {
    const owner = session(sample.session_id, sample.slot);
    const n = counters.get(sample.session_id) ?? 0;
    counters.set(sample.session_id, n + 1);
    const context = addSample(owner, view, sample, n, step, forestNodes.get(sample.session_id));
    model.contexts.push(context);
    groupView.contextIds.push(context.id);
  }
  for (const dropped of group.dropped_sessions ?? []) {
    const owner = session(dropped.session_id, sessions.size);
    owner.dropReason = dropped.reason;
    owner.dropMessage = dropped.message;
  }
  const ordered = [...sessions.values()].sort((a, b) => a.slot - b.slot);
  groupView.sessionIds = ordered.map((owner) => owner.id);
  groupView.rewardMean = mean(ordered.map((owner) => owner.reward));
  model.sessions.push(...ordered);
  view.groups.push(groupView);
}

/** An empty session view (`<step>/<session id>`): no contexts, reward or turns yet. */
function newSessionView(step: string, groupIndex: number, sessionId: string, slot: number): SessionView {
  return {
    id: `${step}/${sessionId}`,
    sessionId,
    step,
    groupIndex,
    slot,
    contextIds: [],
    reward: null,
    advantage: null,
    turnCount: 0,
    transitions: {},
    weightVersions: [],
    requestClasses: [],
    sideForests: [],
  };
}

/**
 * Sets a session's forest tree (its contexts linked by state hash, leaves marked with the Group's drop
 * reason when it was not exported), its side forests (`record` classes, never trained; `train` classes,
 * their leaves linked to their side contexts), its
 * prompt, turn count and transition classes from the dumped session.
 */
function addSessionForests(
  owner: SessionView,
  dumped: DumpSession,
  step: string,
  group: DumpGroup,
  contextIdsByHash: Map<string, string[]>,
): void {
  const forestOptions = {
    session: dumped,
    step,
    contextIdsByHash,
    ...(group.outcome !== "exported" && group.reason !== undefined && { groupDropReason: group.reason }),
  };
  const forest = buildForestView(forestOptions);
  owner.forest = forest;
  owner.requestClasses.push("main");
  for (const [requestClass, sideForest] of Object.entries(dumped.side_forests ?? {})) {
    // A class with the `train` policy exports its leaves as side contexts (their samples are in the dump).
    const side = buildForestView({
      session: { ...dumped, forest: sideForest },
      step,
      contextIdsByHash,
    });
    const trained = side.nodes.some((node) => node.exportedAs.length > 0);
    for (const node of side.nodes) {
      if (node.leaf && !trained)
        node.notExportedReason = `recorded as ${requestClass}, never trained (policy record)`;
    }
    owner.sideForests.push({ requestClass, policy: trained ? "train" : "record", forest: side });
    owner.requestClasses.push(requestClass);
  }
  const firstRequest = forest.nodes.find((node) => node.kind === "observation" && node.parent === null);
  if (firstRequest !== undefined) owner.prompt = firstRequest.messages;
  owner.turnCount = forest.turns.length;
  for (const turn of forest.turns)
    owner.transitions[turn.transition] = (owner.transitions[turn.transition] ?? 0) + 1;
}

/**
 * The context view of a session's `n`-th sample (0-based). The first sample sets the session's reward,
 * advantage, metadata, reward details, prompt text and output; without a forest the samples give its
 * turn count and transitions. Its weight versions are added to the session and the step.
 */
function addSample(
  owner: SessionView,
  view: StepView,
  sample: DumpSample,
  n: number,
  step: string,
  nodes: Map<string, TreeNodeView> | undefined,
) {
  const context = buildContextView({
    id: owner.contextIds[n]!,
    step,
    sessionKey: owner.id,
    sample,
    ...(nodes !== undefined && { forestNodes: nodes }),
  });
  if (n === 0) {
    owner.reward = sample.reward;
    owner.advantage = sample.advantage;
    if (sample.metadata !== undefined) owner.metadata = sample.metadata;
    if (sample.reward_details !== undefined && Object.keys(sample.reward_details).length > 0)
      owner.rewardDetails = sample.reward_details;
    if (sample.prompt_text !== undefined) owner.promptText = sample.prompt_text;
    if (context.rewardSource !== undefined) owner.rewardSource = context.rewardSource;
    if (context.advantageSource !== undefined) owner.advantageSource = context.advantageSource;
    const exported = nodes?.get(sample.state_hash);
    if (exported?.kind === "response" && exported.messages[0] !== undefined)
      owner.output = exported.messages[0];
  }
  if (owner.forest === undefined) {
    owner.turnCount = Math.max(owner.turnCount, sample.turn_count);
    for (const turn of sample.turns)
      owner.transitions[turn.transition] = (owner.transitions[turn.transition] ?? 0) + 1;
  }
  for (const version of sample.weight_versions) {
    if (!owner.weightVersions.includes(version)) owner.weightVersions.push(version);
    if (!view.weightVersions.includes(version)) view.weightVersions.push(version);
  }
  return context;
}

function addRows(model: ViewModel, step: string, source: string, rows: readonly TrainingRow[]): void {
  const view: StepView = {
    id: step,
    source,
    kind: "rows",
    mode: String(rows[0]?.metadata.rollout_mode ?? "train"),
    groups: [],
    dropsByReason: {},
    weightVersions: [],
  };
  const groups = new Map<number, GroupView>();
  const sessions = new Map<string, SessionView>();
  for (const row of rows) {
    let group = groups.get(row.group_index);
    if (group === undefined) {
      group = {
        step,
        index: row.group_index,
        outcome: "exported",
        sessionIds: [],
        contextIds: [],
        rewardMean: null,
      };
      groups.set(row.group_index, group);
    }
    let owner = sessions.get(row.session_id);
    if (owner === undefined) {
      owner = {
        id: `${step}/${row.session_id}`,
        sessionId: row.session_id,
        step,
        groupIndex: row.group_index,
        slot: group.sessionIds.length,
        contextIds: [],
        reward: row.reward ?? null,
        advantage: row.advantage,
        turnCount: row.num_turns,
        transitions: {},
        weightVersions: [],
        metadata: row.metadata,
        requestClasses: [],
        sideForests: [],
      };
      sessions.set(row.session_id, owner);
      group.sessionIds.push(owner.id);
      model.sessions.push(owner);
    }
    const id = `${owner.id}/${owner.contextIds.length}`;
    owner.contextIds.push(id);
    group.contextIds.push(id);
    for (const version of row.weight_versions) {
      if (!owner.weightVersions.includes(version)) owner.weightVersions.push(version);
      if (!view.weightVersions.includes(version)) view.weightVersions.push(version);
    }
    model.contexts.push(
      buildContextView({
        id,
        step,
        sessionKey: owner.id,
        sample: {
          session_id: row.session_id,
          group_index: row.group_index,
          context_name: row.context_name,
          state_hash: row.state_hash,
          status: row.status,
          tokens: row.tokens,
          prompt_length: row.prompt_length,
          loss_mask: row.loss_mask,
          rollout_log_probs: row.rollout_log_probs,
          weight_version_spans: [],
          reward: row.reward ?? null,
          advantage: row.advantage,
          ...(row.multimodal_train_inputs !== undefined && {
            multimodal_train_inputs: row.multimodal_train_inputs,
          }),
          ...(row.reward_source !== undefined && { reward_source: row.reward_source }),
        },
      }),
    );
    const context = model.contexts[model.contexts.length - 1]!;
    if (owner.contextIds.length === 1 && context.rewardSource !== undefined)
      owner.rewardSource = context.rewardSource;
  }
  for (const group of groups.values()) {
    group.rewardMean = mean(
      group.sessionIds.map((id) => sessions.get(id.slice(step.length + 1))?.reward ?? null),
    );
    view.groups.push(group);
  }
  view.groups.sort((a, b) => a.index - b.index);
  model.steps.push(view);
}

function mean(values: readonly (number | null)[]): number | null {
  const present = values.filter((value): value is number => value !== null);
  return present.length === 0 ? null : present.reduce((sum, value) => sum + value, 0) / present.length;
}
