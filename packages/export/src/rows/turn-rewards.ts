import { formatFieldPath } from "@relax/chat";
import type { TrainingSample } from "@relax/forest";
import { z } from "zod";

/**
 * Per-turn (process) rewards as an agent or a reward function writes them (see
 * docs/contract.md#per-turn-rewards):
 * - an array, one entry per response turn of the exported context in order (`null`: no reward for that
 *   turn); its length must equal the number of turns;
 * - an object keyed by 0-based turn index (`{"0": 0.5, "3": 1}`); turns not named get `null`.
 * For an implicit export split into segments (compaction segments, agent contexts) the index runs over
 * the segments' turns in order.
 */
export const turnRewardsSchema = z.union([
  z.array(z.number().finite().nullable()),
  z.record(
    z.string().regex(/^(0|[1-9]\d*)$/, "keys must be 0-based turn indices"),
    z.number().finite().nullable(),
  ),
]);
/** A parsed per-turn reward value ({@link turnRewardsSchema}). */
export type TurnRewardsValue = z.infer<typeof turnRewardsSchema>;

/** Per-turn rewards aligned to a row: one entry per response turn, and where each turn ends. */
export interface AlignedTurnRewards {
  /** `turn_rewards[i]`: the reward of the row's `i`-th response turn, `null` when it has none. */
  values: Array<number | null>;
  /**
   * `turn_reward_positions[i]`: the response position (relative to `prompt_length`) of turn `i`'s last
   * generated token, where a trainer places the turn's reward.
   */
  positions: number[];
}

/** A per-turn reward value that does not fit its context; `path` names the field, e.g. `output.turn_rewards[2]`. */
export class TurnRewardsError extends Error {
  readonly path: string;
  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.name = "TurnRewardsError";
    this.path = path;
  }
}

/** Options of {@link alignTurnRewards}. */
export interface AlignTurnRewardsOptions {
  /** The value as written (validated here with {@link turnRewardsSchema}). */
  value: unknown;
  /** Where the value came from, for errors: `output.turn_rewards`, `records[0].reward.turn_rewards`. */
  path: string;
  /** The context's sample (its turns' response spans). */
  sample: Pick<TrainingSample, "turns">;
  /** Index of the context's first turn in the value (turns of earlier segments). @default 0 */
  offset?: number;
  /** Turns the value covers in all (the context's, or every segment's together). @default sample.turns.length */
  totalTurns?: number;
}

/**
 * Aligns per-turn rewards to one context: the entries `[offset, offset + turns)` of the value, with each
 * turn's last generated position.
 *
 * @throws TurnRewardsError naming the field path: the shape is wrong (not an array of numbers / nulls or
 *   an index-keyed object), an array's length differs from `totalTurns`, or a key is `>= totalTurns`.
 */
export function alignTurnRewards(options: AlignTurnRewardsOptions): AlignedTurnRewards {
  const { value, path, sample, offset = 0, totalTurns = sample.turns.length } = options;
  const parsed = turnRewardsSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const inner = issue.code === "invalid_union" ? firstUnionIssue(issue) : issue;
    throw new TurnRewardsError(
      formatFieldPath(inner.path, path),
      inner === issue
        ? "must be an array of numbers or nulls (one per turn), or an object keyed by turn index"
        : inner.message,
    );
  }
  const all = new Array<number | null>(totalTurns).fill(null);
  if (Array.isArray(parsed.data)) {
    if (parsed.data.length !== totalTurns) {
      throw new TurnRewardsError(
        path,
        `has ${parsed.data.length} entries, but the exported context has ${totalTurns} response turn(s)`,
      );
    }
    parsed.data.forEach((reward, i) => {
      all[i] = reward;
    });
  } else {
    for (const [key, reward] of Object.entries(parsed.data)) {
      const index = Number(key);
      if (index >= totalTurns) {
        throw new TurnRewardsError(
          `${path}.${key}`,
          `turn ${index} does not exist: the exported context has ${totalTurns} response turn(s)`,
        );
      }
      all[index] = reward;
    }
  }
  const turns = sample.turns;
  return {
    values: all.slice(offset, offset + turns.length),
    positions: turns.map((turn) => Math.max(0, turn.responseSpan[1] - 1)),
  };
}

/** The first issue of the union branch that got furthest (the array branch for an array). */
function firstUnionIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== "invalid_union") return issue;
  const branches = issue.errors.filter((branch) => branch.length > 0);
  const best = branches.find((branch) => branch.some((inner) => inner.path.length > 0));
  return best?.[0] ?? issue;
}
