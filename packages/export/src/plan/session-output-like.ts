import { z } from "zod";

/**
 * A reward as an agent (or a reward function) writes it: a number, an object holding a primary value
 * under `rewardKey` plus numeric helper fields, or `null` / absent for "no reward here".
 * @see docs/contract.md#reward
 */
export type RewardValue = number | Record<string, unknown> | null | undefined;

/**
 * One explicit export record (one JSONL line of `RELAX_OUTPUT_JSON`): a training context identified by
 * its exact canonical state. Wire spelling is snake_case (`chat_template_kwargs`).
 * @see docs/contract.md#export-records
 */
export interface ExportRecordLike {
  /** Non-empty, unique within the session; the custom advantage key. */
  name: string;
  /** The full Chat-shaped message history the generation used. */
  messages: unknown[];
  /** The exact tools the context used (omitted or `[]` when none). */
  tools?: unknown[];
  /** The exact template kwargs; merged over the configured defaults before matching. */
  chat_template_kwargs?: Record<string, unknown>;
  /** Per-context metric and custom-credit input. */
  metadata?: Record<string, unknown>;
  /** Per-context task outcome. */
  reward?: RewardValue;
  /** Per-turn rewards of this context (docs/contract.md#per-turn-rewards); checked at export. */
  turn_rewards?: unknown;
}

/**
 * The parsed agent output, as `@relax/launcher` produces it (accepted structurally; this package does
 * not depend on the launcher):
 * - `{ kind: "implicit" }`: the agent wrote nothing, an empty file, or an object without `messages`;
 *   export the one committed leaf, with optional `metadata` and `reward`;
 * - `{ kind: "records" }`: one or more explicit records, each matched to a committed forest state.
 *
 * `null` in {@link SessionExportInput.output} means the same as `{ kind: "implicit" }`.
 * @see docs/contract.md#session-input-output, docs/contract.md#export-records
 */
export type SessionOutputLike =
  | { kind: "implicit"; metadata?: Record<string, unknown>; reward?: RewardValue; turn_rewards?: unknown }
  | { kind: "records"; records: ExportRecordLike[] };

const metadataSchema = z.record(z.string(), z.unknown());
const rewardSchema = z.union([z.number(), z.record(z.string(), z.unknown()), z.null()]).optional();

/** zod schema of {@link ExportRecordLike}; `name` must be a non-empty string. */
export const exportRecordLikeSchema = z.object({
  name: z.string().min(1, "must be a non-empty string"),
  messages: z.array(z.unknown()),
  tools: z.array(z.unknown()).nullish(),
  chat_template_kwargs: metadataSchema.nullish(),
  metadata: metadataSchema.nullish(),
  reward: rewardSchema,
  turn_rewards: z.unknown().optional(),
});

/** zod schema of {@link SessionOutputLike}, used to validate what the launcher hands over. */
export const sessionOutputLikeSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("implicit"),
    metadata: metadataSchema.nullish(),
    reward: rewardSchema,
    turn_rewards: z.unknown().optional(),
  }),
  z.object({ kind: z.literal("records"), records: z.array(exportRecordLikeSchema) }),
]);
