import { z } from "zod";

/**
 * A reward as the agent reports it: a scalar outcome, an object holding the primary value (selected by
 * `--reward-key`) plus numeric helper metrics, or `null` (no reward: a reward model must provide it).
 * @see docs/contract.md#reward
 */
export type Reward = number | Record<string, unknown> | null;

const jsonObjectSchema = z.record(z.string(), z.unknown());

/** @internal zod schema of {@link Reward}. */
export const rewardSchema = z.union([z.number(), jsonObjectSchema, z.null()]);

/**
 * Per-turn (process) rewards as the agent reports them: an array with one entry per response turn of the
 * context (`null`: none for that turn), or an object keyed by 0-based turn index. Their fit to the
 * context's turns is checked at export.
 * @see docs/contract.md#per-turn-rewards
 */
export type TurnRewards = Array<number | null> | Record<string, number | null>;

/** @internal zod schema of {@link TurnRewards}. */
export const turnRewardsSchema = z.union([
  z.array(z.number().finite().nullable()),
  z.record(
    z.string().regex(/^(0|[1-9]\d*)$/, "keys must be 0-based turn indices"),
    z.number().finite().nullable(),
  ),
]);

/**
 * One explicit export record: a training context the agent selected, matched later against a committed
 * SessionForest state by `(messages, tools, chat_template_kwargs)`. Field names keep the file's spelling;
 * `messages` and `tools` stay raw JSON (canonicalisation belongs to `@relax/chat`).
 * @see docs/contract.md#export-records
 */
export interface ExportRecord {
  /** Unique, non-empty name within the session; also the custom-advantage key. */
  name: string;
  /** The complete message history generation used (raw JSON objects, at least one). */
  messages: Record<string, unknown>[];
  /** The exact tools of that context, when it used tools. */
  tools?: Record<string, unknown>[];
  /** The exact chat-template arguments of that context, when it used any. */
  chat_template_kwargs?: Record<string, unknown>;
  /** Per-context metrics and custom-credit inputs. */
  metadata?: Record<string, unknown>;
  /** Per-context task outcome. */
  reward?: Reward;
  /** Per-turn rewards of this context. */
  turn_rewards?: TurnRewards;
  /** 1-based line of the record in the output file (1 for a single JSON object). */
  line: number;
}

/** @internal zod schema of one export record (without `line`); unknown keys are stripped and warned. */
export const exportRecordSchema = z.object({
  name: z.string().refine((name) => name.trim() !== "", { message: "must be a non-empty string" }),
  messages: z.array(jsonObjectSchema).min(1, { message: "must hold at least one message" }),
  tools: z.array(jsonObjectSchema).nullish(),
  chat_template_kwargs: jsonObjectSchema.nullish(),
  metadata: jsonObjectSchema.nullish(),
  reward: rewardSchema.optional(),
  turn_rewards: turnRewardsSchema.optional(),
});

/** @internal zod schema of the implicit-export object (`{metadata?, reward?}`). */
export const implicitOutputSchema = z.object({
  metadata: jsonObjectSchema.nullish(),
  reward: rewardSchema.optional(),
  turn_rewards: turnRewardsSchema.optional(),
});

/**
 * What an agent's `RELAX_OUTPUT_JSON` asks Relax to export:
 * - `{ kind: "implicit" }`: export the session's unique committed leaf (file missing, empty, or a JSON
 *   object without `messages`), with optional output-level `metadata` and `reward`;
 * - `{ kind: "records" }`: explicit records (a JSON object with `messages`, or JSONL), at least one.
 * @see docs/contract.md#session-input-output, docs/contract.md#export-records
 */
export type SessionOutput =
  | { kind: "implicit"; metadata?: Record<string, unknown>; reward?: Reward; turn_rewards?: TurnRewards }
  | { kind: "records"; records: ExportRecord[] };

/** A non-fatal remark about the output file, e.g. an unknown key that was ignored. */
export interface SessionOutputWarning {
  /** 1-based line, or `null` for a whole-file remark. */
  line: number | null;
  /** The key the warning is about. */
  key: string;
  /** Human-readable text. */
  message: string;
}

/** The parse result of a session output file. */
export interface ParsedSessionOutput {
  output: SessionOutput;
  warnings: SessionOutputWarning[];
}

/** Record keys the contract defines (anything else is warned about and ignored). */
export const EXPORT_RECORD_KEYS: readonly string[] = Object.keys(exportRecordSchema.shape);
/** Keys of the implicit-export object. */
export const IMPLICIT_OUTPUT_KEYS: readonly string[] = Object.keys(implicitOutputSchema.shape);
