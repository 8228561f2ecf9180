import type { SegmentKind, TrainingSample } from "@relax/forest";
import type { ExportableForest } from "../plan/exportable-forest";
import type { NonFinalizableReason } from "../plan/plan-session-export";
import type { RewardValue, SessionOutputLike } from "../plan/session-output-like";
import type { AdvantageSource, RewardSource } from "../reward/reward-source";
import type { TrainingRow } from "../rows/training-row";
import type { AlignedTurnRewards } from "../rows/turn-rewards";
import type { SideContextInput } from "./side-contexts";

/** `train` runs credit assignment; `eval` resolves rewards only (advantages are 0, custom advantage is not called). */
export type ExportMode = "train" | "eval";

/** One finished session handed to the export step. */
export interface SessionExportInput {
  sessionId: string;
  /** The parsed agent output (`@relax/launcher`); `null`/`undefined` is an implicit export. */
  output: SessionOutputLike | null | undefined;
  /** The session's committed states. */
  forest: ExportableForest;
  /** The dataset sample the session was created from, passed to reward functions. */
  datasetSample?: unknown;
  /**
   * The session's side forests whose request class has the policy `train` (see
   * docs/contract.md#side-contexts): every exportable leaf becomes a side context of the session.
   * @default []
   */
  sideContexts?: SideContextInput[];
}

/** One sampled Group: `n_samples_per_prompt` sessions of the same prompt, in sampled order. */
export interface GroupExportInput {
  /** Index of the Group (prompt) within the step; becomes `group_index` on every row. */
  groupIndex: number;
  /**
   * Index of the Group's prompt in its dataset (0-based line); becomes `prompt_index` on every row.
   * @default groupIndex (a caller without a dataset)
   */
  promptIndex?: number;
  sessions: SessionExportInput[];
}

/** One exported context, as the pipeline holds it (rows, metrics and the debug dump derive from it). */
export interface ExportedContext {
  sessionId: string;
  /** Position of the session in the sampled Group. */
  slot: number;
  groupIndex: number;
  /** Record name, `null` for an implicit export. */
  name: string | null;
  /** Key in the custom advantage mapping (`name`, or `"null"` for an implicit export). */
  key: string;
  stateHash: string;
  sample: TrainingSample;
  /** Export metadata. */
  metadata: Record<string, unknown>;
  /** The reward as exported by the agent. */
  exportedReward: RewardValue;
  /** Primary reward after resolution and reward functions; `null` when none. */
  reward: number | null;
  /** Helper fields of the reward object. */
  rewardDetails: Record<string, number>;
  /** Where `reward` came from; unset until rewards are resolved (the debug dump then writes `none`). */
  rewardSource?: RewardSource;
  /** Base credit; `null` when the Group was dropped or filtered before credit was assigned. */
  advantage: number | null;
  /** How `advantage` was assigned; unset until credit is assigned (the debug dump then writes `none`). */
  advantageSource?: AdvantageSource;
  /**
   * A segment of an implicit export (0-based index of `count`) and its kind: a compaction segment or an
   * agent context (docs/contract.md#agent-contexts; the row's `segment_kind`). Earlier segments take the
   * reward and advantage of the session's last segment; only the last counts as the session's context
   * for Group statistics.
   */
  segment?: { index: number; count: number; kind: SegmentKind };
  /** A side context's request class (`compaction`, `subagent`, …); absent for the session's own contexts. */
  requestClass?: string;
  /** A side context's parent turn: the main-forest response the side request came after. */
  parentStateHash?: string;
  /** Per-turn rewards as written (agent output or reward object), before alignment. */
  turnRewardsSource?: { value: unknown; path: string };
  /** Per-turn rewards aligned to this context's turns (rows' `turn_rewards`, `turn_reward_positions`). */
  turnRewards?: AlignedTurnRewards;
}

/**
 * Why a whole Group was dropped: a non-finalizable session ({@link NonFinalizableReason}), or
 * - `multiple_contexts_without_custom_advantage`: a session exported several contexts and no custom
 *   advantage function is configured;
 * - `invalid_reward`: an exported reward has no usable primary value;
 * - `missing_reward`: standard normalisation needs a reward for every context, and one has none;
 * - `reward_function_error`: a reward function threw or returned an unusable value;
 * - `advantage_function_error`: the custom advantage function threw or returned a malformed value;
 * - `invalid_turn_rewards`: per-turn rewards do not fit their context (wrong length, unknown turn);
 * - `side_credit_function_error`: the side-credit function threw or returned a malformed value.
 */
export type GroupDropReason =
  | NonFinalizableReason
  | "multiple_contexts_without_custom_advantage"
  | "invalid_reward"
  | "missing_reward"
  | "reward_function_error"
  | "advantage_function_error"
  | "invalid_turn_rewards"
  | "side_credit_function_error";

/** Why a Group was filtered: the custom advantage function returned `null` (its documented way to skip a Group). */
export type GroupFilterReason = "advantage_function_returned_null";

/** A session that could not be finalised. */
export interface SessionDrop {
  sessionId: string;
  reason: NonFinalizableReason;
  message: string;
}

/**
 * The result of exporting one Group: all of its rows, or none (dropped / filtered) with the reason.
 * A Group is never partially exported.
 */
export type GroupExportOutcome =
  | {
      kind: "exported";
      groupIndex: number;
      mode: ExportMode;
      rows: TrainingRow[];
      contexts: ExportedContext[];
    }
  | {
      kind: "dropped";
      groupIndex: number;
      mode: ExportMode;
      reason: GroupDropReason;
      message: string;
      /** Every non-finalizable session (empty for drops that are not about one session's export). */
      sessions: SessionDrop[];
      /** The contexts that were planned before the drop (for the debug dump). */
      contexts: ExportedContext[];
      cause?: unknown;
    }
  | {
      kind: "filtered";
      groupIndex: number;
      mode: ExportMode;
      reason: GroupFilterReason;
      message: string;
      contexts: ExportedContext[];
    };
