import type { SegmentKind, TurnTrace, WeightVersionSpan } from "@relax/forest";
import type { ExportedContext, ExportMode, GroupExportOutcome } from "../group/group-export-outcome";
import type { AdvantageSource, RewardSource } from "../reward/reward-source";
import { abortCountOf, multimodalTrainInputsOf, requestKindsOf } from "../rows/build-training-row";
import type { TrainingRow } from "../rows/training-row";
import { type DebugDumpSession, type DebugDumpSessionInput, dumpSessionForest } from "./dump-session-forest";

/** One sample in the debug dump: everything needed to read back what was (or would have been) trained. */
export interface DebugDumpSample {
  session_id: string;
  rollout_id: string;
  group_index: number;
  /** Position of the session in the sampled Group. */
  slot: number;
  context_name: string | null;
  state_hash: string;
  /** Terminal status of the exported node. */
  status: string;
  prompt_text: string;
  response_text: string;
  tokens: number[];
  prompt_length: number;
  response_length: number;
  loss_mask: number[];
  rollout_log_probs: number[];
  weight_versions: string[];
  weight_version_spans: WeightVersionSpan[];
  /** The full export metadata. */
  metadata: Record<string, unknown>;
  /** The reward exactly as exported (`null` when absent). */
  exported_reward: unknown;
  reward: number | null;
  reward_details: Record<string, number>;
  /** Where `reward` came from: the agent's output field, a reward function, or none ({@link RewardSource}). */
  reward_source: RewardSource;
  /** `null` when the Group was dropped or filtered before credit was assigned. */
  advantage: number | null;
  /** How `advantage` was assigned: Group normalisation, the reward, a custom function, eval 0, or none. */
  advantage_source: AdvantageSource;
  turn_count: number;
  /** Pause aborts summed over the lineage's turns (as the row's `abort_count`). */
  abort_count: number;
  /** Per turn: `fresh`, `resumed` (continued after a pause abort) or `protected` (as the row's). */
  request_kinds: Array<"fresh" | "resumed" | "protected">;
  /** The train steps the sample's Group was resident in (from the exported row; absent before export). */
  steps_lived?: number[];
  /** The row's off-policy distance in steps (from the exported row; absent before export). */
  weight_version_lag?: number;
  /** Per-turn trace from the forest: state hashes, transition class, finish reason, spans, timings. */
  turns: TurnTrace[];
  /**
   * A segment of an implicit export split into several: its 0-based `index` of `count` and its `kind`
   * (`compaction` or `agent`, as the row's `segment_kind`); absent otherwise.
   */
  segment?: { index: number; count: number; kind: SegmentKind };
  /**
   * The sample's images, one per run of image-pad tokens in `tokens` (as the row's, each image's `source`
   * its URL as the agent sent it, a `data:` URL included); absent for a text sample.
   */
  multimodal_train_inputs?: TrainingRow["multimodal_train_inputs"];
}

/** One Group in the debug dump. */
export interface DebugDumpGroup {
  group_index: number;
  outcome: GroupExportOutcome["kind"];
  /** Drop / filter reason, absent for exported Groups. */
  reason?: string;
  message?: string;
  /** Non-finalizable sessions of a dropped Group. */
  dropped_sessions?: { session_id: string; reason: string; message: string }[];
  samples: DebugDumpSample[];
  /**
   * Optional: every session of the Group in slot order with its forest (nodes, turns, exported-as),
   * present when {@link BuildDebugDumpOptions.sessions} names the Group. Read by `relax view`.
   */
  sessions?: DebugDumpSession[];
}

/** The JSON document written by {@link writeDebugDump}. */
export interface DebugDump {
  /** The step id substituted for `{rollout_id}` (with the `eval_` prefix in eval). */
  rollout_id: string;
  mode: ExportMode;
  groups: DebugDumpGroup[];
}

/** Options of {@link buildDebugDump}. */
export interface BuildDebugDumpOptions {
  /** The training step (the dump's `rollout_id` comes from it; not a session's `rollout_id`). */
  rolloutStep: number | string;
  /** @default "train" */
  mode?: ExportMode;
  outcomes: readonly GroupExportOutcome[];
  /** Detokeniser for `prompt_text` / `response_text` (special tokens kept). */
  decode: (ids: number[]) => string;
  /** Optional: the sessions (in slot order) with their forests, by Group index; adds `sessions` to a Group. */
  sessions?: ReadonlyMap<number, readonly DebugDumpSessionInput[]>;
}

/**
 * Builds the debug dump of a step (`--save-debug-rollout-data`): every sample of every Group —
 * exported, filtered, or dropped after planning — with decoded text, full metadata, the per-turn trace,
 * state hashes and terminal status, where its reward and advantage came from, and its images. Dropped Groups also list their non-finalizable sessions.
 */
export function buildDebugDump(options: BuildDebugDumpOptions): DebugDump {
  const { rolloutStep, mode = "train", outcomes, decode, sessions } = options;
  return {
    rollout_id: debugRolloutId({ rolloutStep, mode }),
    mode,
    groups: outcomes.map((outcome): DebugDumpGroup => {
      const group: DebugDumpGroup = {
        group_index: outcome.groupIndex,
        outcome: outcome.kind,
        samples: outcome.contexts.map((context) => {
          const sample = dumpSample(context, decode);
          // Cross-step fields the rollout controller adds to an exported Group's rows.
          const row =
            outcome.kind === "exported"
              ? outcome.rows.find(
                  (item) => item.session_id === context.sessionId && item.state_hash === context.stateHash,
                )
              : undefined;
          if (row?.steps_lived !== undefined) sample.steps_lived = row.steps_lived;
          if (row?.weight_version_lag !== undefined) sample.weight_version_lag = row.weight_version_lag;
          return sample;
        }),
      };
      if (outcome.kind !== "exported") {
        group.reason = outcome.reason;
        group.message = outcome.message;
      }
      const forests = sessions?.get(outcome.groupIndex);
      if (forests !== undefined) group.sessions = dumpGroupSessions(forests, outcome.contexts);
      if (outcome.kind === "dropped" && outcome.sessions.length > 0) {
        group.dropped_sessions = outcome.sessions.map((session) => ({
          session_id: session.sessionId,
          reason: session.reason,
          message: session.message,
        }));
      }
      return group;
    }),
  };
}

/**
 * The id written into the dump and its path: the step, with an `eval_` prefix in eval (see
 * docs/contract.md#metrics).
 */
export function debugRolloutId({
  rolloutStep,
  mode,
}: {
  rolloutStep: number | string;
  mode: ExportMode;
}): string {
  return mode === "eval" ? `eval_${rolloutStep}` : String(rolloutStep);
}

function dumpGroupSessions(
  sessions: readonly DebugDumpSessionInput[],
  contexts: readonly ExportedContext[],
): DebugDumpSession[] {
  return sessions.map((session, slot) => {
    const exportedAs = new Map<string, (string | null)[]>();
    for (const context of contexts) {
      if (context.sessionId !== session.sessionId) continue;
      exportedAs.set(context.stateHash, [...(exportedAs.get(context.stateHash) ?? []), context.name]);
    }
    const dumped: DebugDumpSession = {
      session_id: session.sessionId,
      slot,
      forest: dumpSessionForest(session.forest, exportedAs),
    };
    if (session.sideForests !== undefined && session.sideForests.size > 0) {
      dumped.side_forests = Object.fromEntries(
        [...session.sideForests].map(([requestClass, forest]) => [
          requestClass,
          // A trained class's leaves are side contexts (docs/contract.md#side-contexts).
          dumpSessionForest(forest, sideExportedAs(contexts, session.sessionId, requestClass)),
        ]),
      );
    }
    return dumped;
  });
}

/** State hash → side-context names of one request class of one session. */
function sideExportedAs(
  contexts: readonly ExportedContext[],
  sessionId: string,
  requestClass: string,
): Map<string, (string | null)[]> {
  const out = new Map<string, (string | null)[]>();
  for (const context of contexts) {
    if (context.sessionId !== sessionId || context.requestClass !== requestClass) continue;
    out.set(context.stateHash, [...(out.get(context.stateHash) ?? []), context.name]);
  }
  return out;
}

function dumpSample(context: ExportedContext, decode: (ids: number[]) => string): DebugDumpSample {
  const { sample } = context;
  return {
    session_id: context.sessionId,
    rollout_id: sample.rolloutId,
    group_index: context.groupIndex,
    slot: context.slot,
    context_name: context.name,
    state_hash: context.stateHash,
    status: sample.status,
    prompt_text: decode(sample.tokens.slice(0, sample.promptLength)),
    response_text: decode(sample.tokens.slice(sample.promptLength)),
    tokens: sample.tokens,
    prompt_length: sample.promptLength,
    response_length: sample.responseLength,
    loss_mask: sample.lossMask,
    rollout_log_probs: sample.rolloutLogProbs,
    weight_versions: sample.weightVersions,
    weight_version_spans: sample.weightVersionSpans,
    metadata: context.metadata,
    exported_reward: context.exportedReward ?? null,
    reward: context.reward,
    reward_details: context.rewardDetails,
    reward_source: context.rewardSource ?? { kind: "none" },
    advantage: context.advantage,
    advantage_source: context.advantageSource ?? { kind: "none" },
    turn_count: sample.turnCount,
    abort_count: abortCountOf(sample),
    request_kinds: requestKindsOf(sample),
    turns: sample.turns,
    ...(context.segment !== undefined && { segment: { ...context.segment } }),
    ...multimodalTrainInputsOf(sample, false),
  };
}
