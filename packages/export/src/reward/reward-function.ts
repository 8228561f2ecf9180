import type { TrainingSample } from "@relax/forest";
import type { RewardValue } from "../plan/session-output-like";

/**
 * What a reward function sees for one exported context. `metadata` is a deep copy; mutating it has no
 * effect on the row.
 */
export interface RewardFunctionInput {
  sessionId: string;
  groupIndex: number;
  /** Position of the session in the sampled Group. */
  slot: number;
  /** Record name, or `null` for an implicit export. */
  contextName: string | null;
  /** The export metadata. */
  metadata: Record<string, unknown>;
  /** The reward the agent exported (may be `null`/absent). */
  exportedReward: RewardValue;
  /** The session's dataset sample (prompt, label, …) as the controller passed it, if any. */
  datasetSample?: unknown;
  /** The training sample: tokens, masks, turns, status. */
  sample: TrainingSample;
  /** `decode(tokens[0:promptLength])`, present when the pipeline was given a `decode` function. */
  promptText?: string;
  /** `decode(tokens[promptLength:])`, present when the pipeline was given a `decode` function. */
  responseText?: string;
}

/**
 * A per-sample reward function (`--custom-rm-path module#export` without `--group-rm`). May be async.
 * Returns a number, or an object resolved with `rewardKey`. Called only for contexts whose exported
 * reward is `null`/absent, concurrently within a Group.
 */
export type RewardFunction = (input: RewardFunctionInput) => RewardValue | Promise<RewardValue>;

/**
 * A group reward function (`--custom-rm-path` with `--group-rm`): receives every context of the Group
 * at once, in sampled order (sessions, then each session's contexts in export order), and returns one
 * reward per input. Its return value replaces every exported reward (the exported one is in the input).
 */
export type GroupRewardFunction = (
  inputs: RewardFunctionInput[],
) => readonly RewardValue[] | Promise<readonly RewardValue[]>;
