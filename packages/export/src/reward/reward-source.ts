import { z } from "zod";

/**
 * Where a context's primary reward came from, as the debug dump records it (`reward_source`, see
 * docs/contract.md#metrics):
 * - `agent_output`: the agent's output file; `path` is the field it was read from (`output.reward` for an
 *   implicit export, `records[<i>].reward` for an explicit record) and `key` the `--reward-key` that named
 *   the primary field of a reward object (absent for a plain number);
 * - `reward_function`: the per-sample reward function (`--custom-rm-path`) filled it; `function` is its
 *   `module#export` spec, or `"inline"` for a function given directly in the config;
 * - `group_reward_function`: the group reward function (`--custom-rm-path` with `--group-rm`) replaced it;
 * - `none`: the context has no reward (a custom advantage function assigns credit without one, or the
 *   Group was dropped before its rewards were resolved).
 *
 * `copied_from` is set on an earlier segment (compaction segment or agent context): the state hash of the
 * session's last segment, whose reward (and source) it took.
 */
export type RewardSource = z.infer<typeof rewardSourceSchema>;

const functionSpec = z.string().describe("The function's `module#export` spec, or `inline`.");
const copiedFrom = z
  .string()
  .optional()
  .describe(
    "An earlier segment (compaction segment, agent context): the state hash of the last segment whose reward it took.",
  );

/**
 * zod schema of {@link RewardSource}, as the row's optional `reward_source` and the dump's `reward_source`
 * spell it (strict kinds: a writer's new kind is a row format change).
 */
export const rewardSourceSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("agent_output"),
    path: z.string().describe("`output.reward` (implicit export) or `records[<i>].reward`."),
    key: z.string().optional().describe("The `--reward-key` that named a reward object's primary field."),
    copied_from: copiedFrom,
  }),
  z.object({ kind: z.literal("reward_function"), function: functionSpec, copied_from: copiedFrom }),
  z.object({ kind: z.literal("group_reward_function"), function: functionSpec, copied_from: copiedFrom }),
  z.object({ kind: z.literal("none"), copied_from: copiedFrom }),
]);

/**
 * How a context's advantage (base credit) was assigned, as the debug dump records it (`advantage_source`,
 * see docs/contract.md#advantage):
 * - `normalized`: Group normalisation with `--advantage-estimator`; `std_normalization` tells whether GRPO
 *   divided by the standard deviation (only for `grpo`);
 * - `reward`: the reward itself (`--disable-rewards-normalization`);
 * - `custom_advantage`: the custom advantage function (`--agentic-custom-advantage-path`, `function` its
 *   `module#export` spec or `"inline"`);
 * - `eval`: 0, as every eval row;
 * - `none`: no advantage (the Group was dropped or filtered before credit was assigned).
 */
export type AdvantageSource =
  | {
      kind: "normalized";
      estimator: "grpo" | "rloo" | "reinforce_plus_plus_baseline";
      std_normalization?: boolean;
    }
  | { kind: "reward" }
  | { kind: "custom_advantage"; function: string }
  | { kind: "eval" }
  | { kind: "none" };

/** The name a source records for a configured user function: its `module#export` spec, or `"inline"`. */
export function functionSpecName(value: unknown): string {
  return typeof value === "string" ? value : "inline";
}
