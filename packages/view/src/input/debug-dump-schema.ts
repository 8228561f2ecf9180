import { z } from "zod";

/**
 * zod schema of the debug dump (`--save-debug-rollout-data`, written by `writeDebugDump` in
 * `@relax/export`), reduced to the fields the viewer reads. Unknown fields are kept, so dumps from newer
 * versions still open; the optional per-session `forest` section is read when present.
 */
const message = z.looseObject({ role: z.string() });
const span = z.object({ version: z.string(), start: z.number().int().min(0), end: z.number().int().min(0) });
const transition = z.enum(["append", "branch", "drift", "reset"]);

const turnTrace = z.looseObject({
  turnIndex: z.number().int().min(0),
  stateHash: z.string(),
  transition,
  toleratedEdits: z.array(z.string()),
  finishReason: z.enum(["stop", "length", "abort"]),
  responseSpan: z.tuple([z.number().int().min(0), z.number().int().min(0)]),
  observationTokens: z.number().int().min(0),
  weightVersion: z.string().optional(),
  turnId: z.number().int().min(0).optional(),
});

/** One image of a row (`multimodal_train_inputs`), as far as the viewer shows it. */
const image = z.looseObject({
  type: z.string(),
  source: z.string().optional(),
  data: z.string().optional(),
  format: z.string().optional(),
  num_tokens: z.number().int().min(0),
  original_size: z.object({ height: z.number(), width: z.number() }).optional(),
});

/** `reward_source` / `advantage_source` of a sample: a `kind` and its fields (read by `describe-sources.ts`). */
const source = z.looseObject({ kind: z.string() });

const sample = z.looseObject({
  session_id: z.string(),
  group_index: z.number().int().min(0),
  slot: z.number().int().min(0),
  context_name: z.string().nullable(),
  state_hash: z.string(),
  status: z.string(),
  tokens: z.array(z.number().int().min(0)),
  prompt_length: z.number().int().min(0),
  response_length: z.number().int().min(0),
  loss_mask: z.array(z.number().int().min(0).max(1)),
  rollout_log_probs: z.array(z.number()),
  weight_versions: z.array(z.string()),
  weight_version_spans: z.array(span),
  reward: z.number().nullable(),
  advantage: z.number().nullable(),
  turn_count: z.number().int().min(0),
  turns: z.array(turnTrace),
  prompt_text: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  reward_details: z.record(z.string(), z.number()).optional(),
  reward_source: source.optional(),
  advantage_source: source.optional(),
  multimodal_train_inputs: z.array(image).optional(),
});

const forestNode = z.looseObject({
  state_hash: z.string(),
  parent_state_hash: z.string(),
  kind: z.enum(["observation", "response"]),
  turn_id: z.number().int().min(0),
  token_count: z.number().int().min(0),
  prefix_tokens: z.number().int().min(0),
  messages: z.array(message),
  finish_reason: z.enum(["stop", "length", "abort"]).optional(),
  reset_from: z.string().optional(),
  superseded_by: z.string().optional(),
  failure: z.string().optional(),
  exported_as: z.array(z.string().nullable()),
});

const forestTurn = z.looseObject({
  turn_id: z.number().int().min(0),
  request_id: z.string().optional(),
  transition,
  linear: z.boolean(),
  tolerated_edits: z.array(z.string()),
  edits: z.array(z.object({ kind: z.string(), path: z.string() })),
  observation_state_hash: z.string(),
  response_state_hash: z.string().optional(),
  status: z.enum(["pending", "committed", "failed"]),
  failure: z.string().optional(),
  request_messages: z.number().int().min(0),
  matched_messages: z.number().int().min(0),
  prompt_tokens: z.number().int().min(0),
});

const forest = z.object({
  root_state_hash: z.string(),
  nodes: z.array(forestNode),
  turns: z.array(forestTurn),
});

const session = z.looseObject({
  session_id: z.string(),
  slot: z.number().int().min(0),
  forest,
  /** Recorded side requests by request class (title, compaction, sub-agent …). */
  side_forests: z.record(z.string(), forest).optional(),
});

const group = z.looseObject({
  group_index: z.number().int().min(0),
  outcome: z.enum(["exported", "dropped", "filtered"]),
  reason: z.string().optional(),
  message: z.string().optional(),
  dropped_sessions: z
    .array(z.object({ session_id: z.string(), reason: z.string(), message: z.string() }))
    .optional(),
  samples: z.array(sample),
  sessions: z.array(session).optional(),
});

/** The debug dump as the viewer reads it. */
export const debugDumpSchema = z.looseObject({
  rollout_id: z.string(),
  mode: z.string(),
  groups: z.array(group),
});

/** A debug dump after validation. */
export type ViewDebugDump = z.infer<typeof debugDumpSchema>;
/** One dumped sample after validation. */
export type ViewDumpSample = z.infer<typeof sample>;
/** One dumped session (with its forest section) after validation. */
export type ViewDumpSession = z.infer<typeof session>;
