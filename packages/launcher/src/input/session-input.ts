import { z } from "zod";

/**
 * The file Relax writes to `RELAX_INPUT_JSON` before the agent starts: `messages` (OpenAI Chat shape,
 * images as `image_url` parts), `metadata` (the dataset's `--metadata-key` object), or both.
 * Messages stay raw JSON here; canonicalisation belongs to `@relax/chat`.
 * @see docs/contract.md#session-input-output
 */
export const sessionInputSchema = z
  .object({
    messages: z.array(z.looseObject({ role: z.string() })).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/** The session input file's shape. */
export type SessionInput = z.infer<typeof sessionInputSchema>;
