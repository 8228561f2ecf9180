import { z } from "zod";

/**
 * One message of the session input, OpenAI Chat shape. Only `role` is checked here: the content is the
 * dataset's and is passed to the model API unchanged (Relax canonicalises it at the gateway).
 */
export const sessionInputMessageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
});

/**
 * The file at `RELAX_INPUT_JSON`: the dataset row projected by Relax (`--input-key` → `messages`,
 * `--metadata-key` → `metadata`). Either may be absent.
 * @see docs/contract.md#agent-process-contract, docs/contract.md#session-input-output
 */
export const sessionInputSchema = z.object({
  messages: z.array(sessionInputMessageSchema).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** A parsed session input. `messages` keep every field the dataset gave them. */
export interface SessionInput {
  messages?: Array<{ role: string; [key: string]: unknown }>;
  metadata?: Record<string, unknown>;
}
