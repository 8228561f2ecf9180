import {
  CanonicalizationError,
  type ConversationState,
  canonicalizeState,
  formatFieldPath,
} from "@relax/chat";
import type { SegmentKind, TrainingSample } from "@relax/forest";
import type { z } from "zod";
import { IMPLICIT_CONTEXT_KEY } from "./context-name";
import { type ExportableForest, isExportMatchError } from "./exportable-forest";
import { type RewardValue, type SessionOutputLike, sessionOutputLikeSchema } from "./session-output-like";

/**
 * What an implicit export does with agent switches (the export config's `agentContexts`, `--agent-contexts`):
 * `train` exports each agent context as a sibling context, `drop` refuses the switch as non-linear history.
 */
export type AgentContextsPolicy = "train" | "drop";

/**
 * Why a session cannot be finalised. Any of these drops the whole Group (never a partial export).
 * - `invalid_output`: the output does not have the {@link SessionOutputLike} shape;
 * - `empty_export`: a records output with no records;
 * - `duplicate_context_name`: two records share a `name`;
 * - `reserved_context_name`: a record is named `"null"` (the implicit-context key);
 * - `invalid_record`: a record's messages / tools / kwargs cannot be canonicalised;
 * - `unmatched_record`: a record matches no committed state with a response on its lineage;
 * - `duplicate_context_state`: two records name the same committed state (its tokens would train twice);
 * - `ambiguous_implicit_export`: implicit export, but the forest has zero or several exportable leaves
 *   (in a segment), or the history is not strictly linear (an agent switch counts as a segment start only
 *   with `agentContexts: "train"`).
 */
export type NonFinalizableReason =
  | "invalid_output"
  | "empty_export"
  | "duplicate_context_name"
  | "reserved_context_name"
  | "invalid_record"
  | "unmatched_record"
  | "duplicate_context_state"
  | "ambiguous_implicit_export";

/** One context chosen for training, with its sample built from the forest. */
export interface PlannedContext {
  /** The record name, or `null` for an implicit export. */
  name: string | null;
  /** State hash of the exported node. */
  stateHash: string;
  /** The export metadata (the record's, or the implicit output's); `{}` when none. Not shared with the input. */
  metadata: Record<string, unknown>;
  /** The reward exactly as the agent wrote it (resolved later). */
  reward: RewardValue;
  /** Where the reward came from, for error messages: `output.reward` or `records[i].reward`. */
  rewardPath: string;
  sample: TrainingSample;
  /**
   * For an implicit export of a session split into segments (compaction segments, agent contexts): this
   * context's segment (0-based, in order) of `count`, and its `kind` ({@link segmentKinds}). Segments are
   * sibling contexts of one trajectory: they share the rollout id, the reward and the advantage of the
   * last segment.
   */
  segment?: { index: number; count: number; kind: SegmentKind };
  /** Per-turn rewards as the agent wrote them (`turn_rewards`) and where, when given. */
  turnRewards?: { value: unknown; path: string };
}

/** The export plan of one session: the contexts to train, or why the session cannot be finalised. */
export type SessionExportPlan =
  | { ok: true; sessionId: string; kind: "implicit" | "explicit"; contexts: PlannedContext[] }
  | { ok: false; sessionId: string; reason: NonFinalizableReason; message: string; cause?: unknown };

/** Options of {@link planSessionExport}. */
export interface PlanSessionExportOptions {
  sessionId: string;
  /** The parsed agent output; `null` / `undefined` is an implicit export without metadata or reward. */
  output: SessionOutputLike | null | undefined;
  forest: ExportableForest;
  /**
   * Configured template kwargs (`--apply-chat-template-kwargs`); a record's own kwargs are merged over
   * them (`{...defaults, ...record.chat_template_kwargs}`) before matching, as for requests (see
   * docs/contract.md#sessionforest).
   * @default {}
   */
  defaultTemplateKwargs?: Record<string, unknown>;
  /**
   * What an implicit export does with agent switches (the export config's `agentContexts`): `train` makes
   * each agent context a segment, `drop` refuses them as non-linear (docs/contract.md#agent-contexts).
   * @default "train"
   */
  agentContexts?: AgentContextsPolicy;
}

/**
 * Decides which committed states of one session become training contexts (see
 * docs/contract.md#export-records):
 * - implicit output → `forest.implicitExportSegments({ agentContexts })` when the forest has it (one
 *   leaf per compaction segment or agent context), else `forest.implicitExportLeaf()`; context name `null`;
 * - records → each record is canonicalised (`canonicalizeState` from `@relax/chat`) and matched with
 *   `forest.matchExportState`; every record must match.
 *
 * A failure never throws for agent-caused problems: it returns `{ ok: false, reason }`, and the caller
 * drops the whole Group. Errors that are not export-match errors (a bug in the forest) are rethrown.
 */
export function planSessionExport(options: PlanSessionExportOptions): SessionExportPlan {
  const { sessionId, forest, defaultTemplateKwargs = {}, agentContexts = "train" } = options;
  const fail = (reason: NonFinalizableReason, message: string, cause?: unknown): SessionExportPlan => ({
    ok: false,
    sessionId,
    reason,
    message: `session ${sessionId}: ${message}`,
    ...(cause === undefined ? {} : { cause }),
  });

  const parsed = sessionOutputLikeSchema.safeParse(options.output ?? { kind: "implicit" });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = formatFieldPath(issue.path, "output");
    return fail("invalid_output", `${path}: ${issue.message}`, parsed.error);
  }
  const output = parsed.data;

  if (output.kind === "implicit") {
    return planImplicitExport({ sessionId, output, forest, agentContexts: agentContexts === "train", fail });
  }

  const records = output.records;
  if (records.length === 0) return fail("empty_export", "the output holds no export records");
  const seen = new Map<string, number>();
  for (const [i, record] of records.entries()) {
    if (record.name === IMPLICIT_CONTEXT_KEY) {
      return fail(
        "reserved_context_name",
        `records[${i}].name: "${IMPLICIT_CONTEXT_KEY}" is reserved for the implicit context in the custom advantage mapping`,
      );
    }
    const first = seen.get(record.name);
    if (first !== undefined) {
      return fail(
        "duplicate_context_name",
        `records[${i}].name: "${record.name}" is already used by records[${first}]; names must be unique in a session`,
      );
    }
    seen.set(record.name, i);
  }

  const contexts: PlannedContext[] = [];
  const byState = new Map<string, number>();
  for (const [i, record] of records.entries()) {
    let state: ConversationState;
    try {
      state = canonicalizeState({
        messages: record.messages,
        tools: record.tools ?? [],
        chat_template_kwargs: record.chat_template_kwargs ?? {},
        defaultTemplateKwargs,
      });
    } catch (error) {
      if (!CanonicalizationError.isInstance(error)) throw error;
      return fail("invalid_record", `records[${i}] ("${record.name}").${error.message}`, error);
    }
    let stateHash: string;
    try {
      stateHash = forest.matchExportState(state).stateHash;
    } catch (error) {
      if (!isExportMatchError(error)) throw error;
      return fail(
        "unmatched_record",
        `records[${i}] ("${record.name}") matches no committed state with a response on its lineage (${error.message}); ` +
          "export the exact messages, reasoning, tool calls, tools and template kwargs the generation used",
        error,
      );
    }
    const twin = byState.get(stateHash);
    if (twin !== undefined) {
      return fail(
        "duplicate_context_state",
        `records[${i}] ("${record.name}") names the same committed state as records[${twin}] ("${records[twin]!.name}"); its tokens would be trained twice`,
      );
    }
    byState.set(stateHash, i);
    contexts.push({
      name: record.name,
      stateHash,
      metadata: structuredClone(record.metadata ?? {}),
      reward: record.reward,
      rewardPath: `records[${i}].reward`,
      sample: forest.buildSample(stateHash),
      ...(record.turn_rewards !== undefined
        ? { turnRewards: { value: record.turn_rewards, path: `records[${i}].turn_rewards` } }
        : {}),
    });
  }
  return { ok: true, sessionId, kind: "explicit", contexts };
}

/** The implicit branch of {@link planSessionExport}: the single leaf, or one per segment. */
function planImplicitExport({
  sessionId,
  output,
  forest,
  agentContexts,
  fail,
}: {
  sessionId: string;
  output: Extract<z.output<typeof sessionOutputLikeSchema>, { kind: "implicit" }>;
  forest: ExportableForest;
  agentContexts: boolean;
  fail: (reason: NonFinalizableReason, message: string, cause?: unknown) => SessionExportPlan;
}): SessionExportPlan {
  let stateHashes: string[];
  try {
    stateHashes =
      forest.implicitExportSegments !== undefined
        ? forest.implicitExportSegments({ agentContexts }).map((leaf) => leaf.stateHash)
        : [forest.implicitExportLeaf().stateHash];
  } catch (error) {
    if (!isExportMatchError(error)) throw error;
    // The forest's message names the fix; a forest that does not gets the general one.
    const fix = error.message.includes("export records")
      ? ""
      : "; write explicit export records (docs/contract.md#export-records)";
    return fail(
      "ambiguous_implicit_export",
      "implicit export needs exactly one exportable leaf of a strictly linear history, or one per compaction " +
        `segment or agent context: ${error.message}${fix}`,
      error,
    );
  }
  const samples = stateHashes.map((stateHash) => forest.buildSample(stateHash));
  const count = samples.length;
  const kinds = count > 1 ? segmentKinds(samples) : [];
  return {
    ok: true,
    sessionId,
    kind: "implicit",
    contexts: stateHashes.map((stateHash, index) => ({
      name: null,
      stateHash,
      metadata: structuredClone(output.metadata ?? {}),
      reward: output.reward,
      rewardPath: "output.reward",
      sample: samples[index]!,
      ...(count > 1 ? { segment: { index, count, kind: kinds[index]! } } : {}),
      ...(output.turn_rewards !== undefined
        ? { turnRewards: { value: output.turn_rewards, path: "output.turn_rewards" } }
        : {}),
    })),
  };
}

/**
 * The kind of each segment of an implicit export, in order: how it began (`sample.segmentStart`: after a
 * compaction, or at an agent switch). The session's first segment began with the session and takes the
 * kind of the split that ended it: the earliest segment start (by its first turn); `compaction` when the
 * forest does not say (forests from before agent contexts).
 */
export function segmentKinds(samples: readonly TrainingSample[]): SegmentKind[] {
  const firstTurn = (sample: TrainingSample) => sample.turns[0]?.turnId ?? Number.POSITIVE_INFINITY;
  let earliest: TrainingSample | undefined;
  for (const sample of samples) {
    if (sample.segmentStart === undefined) continue;
    if (earliest === undefined || firstTurn(sample) < firstTurn(earliest)) earliest = sample;
  }
  const first = earliest?.segmentStart ?? "compaction";
  return samples.map((sample) => sample.segmentStart ?? first);
}
