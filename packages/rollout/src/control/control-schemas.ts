import { trainingRowSchema } from "@relax/export";
import { z } from "zod";

/**
 * Wire schemas of the trainer control API (`relax serve`, `/rollout/v1`), the source of truth for
 * `docs/trainer-api.md` and `docs/trainer-api.schema.json` (regenerate with `pnpm generate:schema` in
 * `apps/gateway`). Wire spelling is snake_case. Request schemas strip unknown fields.
 */

const count = z.number().int().min(0);
const version = z.string().min(1);

// ---- errors ----

/** Error codes of the control API, with their HTTP statuses in `docs/trainer-api.md`. */
export const controlErrorCodeSchema = z.enum([
  "invalid_body",
  "unauthorized",
  "not_found",
  "step_out_of_order",
  "step_running",
  "not_paused",
  "pause_cancelled",
  "pause_timeout",
  "backend_error",
  "backend_unavailable",
  "rollout_stalled",
  "eval_function_failed",
  "interrupted",
  "internal_error",
]);
export type ControlErrorCode = z.infer<typeof controlErrorCodeSchema>;

/** `{code, message, path?}` inside every error body. */
export const controlErrorSchema = z.object({
  code: controlErrorCodeSchema,
  message: z.string(),
  path: z.string().optional().describe("Dotted field path of a body error; absent otherwise."),
});

/** The body of every non-2xx answer. */
export const controlErrorBodySchema = z.object({ error: controlErrorSchema });
export type ControlErrorBody = z.infer<typeof controlErrorBodySchema>;

// ---- requests ----

/** `POST /rollout/v1/steps`. */
export const stepRequestSchema = z
  .object({
    rollout_id: count.describe(
      "`next_rollout_id` runs the next step; a smaller one replays that finished step from its rows file (a trainer restarted from an older checkpoint); a larger one is refused.",
    ),
    weight_version: version
      .optional()
      .describe("The version the engine now serves; labels tokens whose engine response names none."),
    next_step_follows: z
      .boolean()
      .optional()
      .describe(
        "Another step follows this one, so `--agentic-prelaunch` may start its Groups early (default: true; false is the same as `last_step: true`).",
      ),
    last_step: z
      .boolean()
      .optional()
      .describe(
        "This is the run's last step: nothing is prelaunched for a next one (the Groups still resident at its end are ended when serve stops).",
      ),
    final_backfill: z
      .boolean()
      .optional()
      .describe(
        "Deprecated (every step is a full batch; there is no back-fill step): `true` is read as `last_step: true`.",
      ),
  })
  .superRefine((body, context) => {
    const last =
      body.last_step === true ? "last_step" : body.final_backfill === true ? "final_backfill" : undefined;
    if (last !== undefined && body.next_step_follows === true) {
      context.addIssue({
        code: "custom",
        path: ["next_step_follows"],
        message: `true contradicts ${last}: true (the last step has no next step)`,
      });
    }
  });
export type StepRequest = z.infer<typeof stepRequestSchema>;

/** `POST /rollout/v1/evals`. */
export const evalsRequestSchema = z.object({
  rollout_id: count,
  datasets: z.array(z.string().min(1)).optional().describe("Eval dataset names; all when absent."),
});
export type EvalsRequest = z.infer<typeof evalsRequestSchema>;

/** `POST /rollout/v1/pause` (an empty body is `{}`). */
export const pauseRequestSchema = z.object({
  timeout_s: z.number().positive().optional().describe("Give up waiting for quiescence after this long."),
});
export type PauseRequest = z.infer<typeof pauseRequestSchema>;

/** `POST /rollout/v1/resume` (an empty body is `{}`). */
export const resumeRequestSchema = z.object({
  weight_version: version.optional().describe("The version the engine serves from now on."),
});
export type ResumeRequest = z.infer<typeof resumeRequestSchema>;

/** `POST /rollout/v1/weights`: SGLang `POST /update_weights_from_disk` on every worker. */
export const weightsRequestSchema = z.object({
  model_path: z.string().min(1),
  weight_version: version.optional(),
  load_format: z.string().min(1).nullable().optional(),
  flush_cache: z.boolean().optional().describe("@default true"),
});
export type WeightsRequest = z.infer<typeof weightsRequestSchema>;

// ---- responses ----

/** `GET /rollout/v1/health`: 200 with `ok: true`, 503 with `ok: false`. */
export const healthResponseSchema = z.union([
  z.object({ ok: z.literal(true) }),
  z.object({ ok: z.literal(false), error: controlErrorSchema }),
]);
export type HealthResponse = z.infer<typeof healthResponseSchema>;

/** Whether a step trains or evaluates. */
export const stepModeSchema = z.enum(["train", "eval"]);

/** `GET /rollout/v1/status`. */
export const statusResponseSchema = z.object({
  state: z.enum(["idle", "running", "paused"]),
  next_rollout_id: count,
  weight_version: version.nullable().describe("Last version named by the trainer (start / resume), or null."),
  step: z
    .object({
      rollout_id: count,
      mode: stepModeSchema,
      groups_target: count,
      groups_done: count,
      groups_dropped: count,
      rows: count,
    })
    .nullable()
    .describe("The running step, or null."),
  dataset: z.object({ size: count, cursor: count, epoch: count }),
  eval: z.object({
    interval: z.number().int().positive().nullable(),
    next_eval_rollout_id: count.nullable(),
    datasets: z.array(z.string()),
  }),
  in_flight: z.object({
    generating: count.describe("Engine calls generating now."),
    held: count.describe(
      "Agent requests held open by a pause (the first requests of prelaunched agents are counted in `prelaunched_agents`).",
    ),
    aborted_partials: count,
    prelaunched_groups: count
      .optional()
      .describe(
        "`--agentic-prelaunch`: Groups started for the next step, held at their first-request barrier.",
      ),
    prelaunched_agents: count.optional().describe("The agent sessions of `prelaunched_groups`."),
  }),
  run_dir: z.string().nullable(),
  config_hash: z.string(),
  backend: z.enum(["standin", "sglang"]),
  engine_faults: z
    .object({
      held: count.describe("Turns held for an engine failure now."),
      outages: count.describe("Times generation stopped for an engine failure."),
      held_turns: count,
      resumed_turns: count,
      failed_turns: count.describe("Turns that ran out of the hold budget and got the engine's error."),
      stalled_calls: count.describe("Engine calls aborted by the progress check (a hung worker)."),
    })
    .describe("Engine failures of in-flight turns (docs/contract.md#engine-failures)."),
});
export type StatusResponse = z.infer<typeof statusResponseSchema>;

/** `POST /rollout/v1/pause`. */
export const pauseResponseSchema = z.object({
  state: z.literal("paused"),
  aborted_requests: count.describe("Engine calls this pause aborted (0 when already paused)."),
  held_requests: count.describe("Agent requests held open at quiescence."),
  quiescent_ms: z.number().min(0).describe("From the pause call until nothing was generating."),
});
export type PauseResponse = z.infer<typeof pauseResponseSchema>;

/** `POST /rollout/v1/resume`. */
export const resumeResponseSchema = z.object({
  state: z.enum(["running", "idle"]),
  resumed_requests: count,
  weight_version: version.nullable(),
});
export type ResumeResponse = z.infer<typeof resumeResponseSchema>;

/** `POST /rollout/v1/weights`. */
export const weightsResponseSchema = z.object({
  success: z.boolean(),
  weight_version: version.nullable(),
  workers: z.array(z.object({ url: z.string(), success: z.boolean(), message: z.string() })),
});
export type WeightsResponse = z.infer<typeof weightsResponseSchema>;

// ---- NDJSON records of /steps and /evals ----

/** The `summary` of `step_end`: counts, wall time in seconds, drop reasons and rollout metrics. */
export const stepSummarySchema = z.object({
  groups: count,
  rows: count,
  dropped_groups: count,
  debt: count,
  resident_groups: count,
  replayed: z
    .boolean()
    .optional()
    .describe(
      "True for a finished step asked again (`rollout_id` < `next_rollout_id`): its rows came from its rows file, nothing ran; `metrics` is empty and `wall_s` 0.",
    ),
  queued_groups: count
    .optional()
    .describe(
      "Finished Groups kept for the next step (over-sampling or cross-step surplus: they fill its batch first).",
    ),
  final_backfill: z
    .boolean()
    .optional()
    .describe("Deprecated, never written now (every step is a full batch); older servers wrote it."),
  wall_s: z.number().min(0),
  drops_by_reason: z.record(z.string(), count),
  metrics: z.record(z.string(), z.number()),
});

/** First record of a step. */
export const stepStartRecordSchema = z.object({
  type: z.literal("step_start"),
  rollout_id: count,
  mode: stepModeSchema,
  groups: count,
  samples_per_group: count,
  weight_version: version.nullable(),
});
/** One training row of the step, as soon as its Group is exported. */
export const rowRecordSchema = z.object({
  type: z.literal("row"),
  rollout_id: count,
  row: trainingRowSchema,
});
/** A Group that was dropped whole, with the reason. */
export const groupDroppedRecordSchema = z.object({
  type: z.literal("group_dropped"),
  rollout_id: count,
  group_id: z.string(),
  prompt_index: count,
  reason: z.string(),
  message: z.string(),
});
/** One eval row of a dataset. */
export const evalRowRecordSchema = z.object({
  type: z.literal("eval_row"),
  dataset: z.string(),
  row: trainingRowSchema,
});
/** End of one eval dataset, with its summary. */
export const evalEndRecordSchema = z.object({
  type: z.literal("eval_end"),
  dataset: z.string(),
  summary: z.record(z.string(), z.unknown()),
});
/** Last record of a step that completed. */
export const stepEndRecordSchema = z.object({
  type: z.literal("step_end"),
  rollout_id: count,
  summary: stepSummarySchema,
});
/** Last record of `POST /evals`. */
export const evalsEndRecordSchema = z.object({ type: z.literal("evals_end"), rollout_id: count });
/** Last record of a stream that failed after its first record. */
export const errorRecordSchema = z.object({
  type: z.literal("error"),
  error: z.object({ code: z.string(), message: z.string() }),
});

/** One NDJSON line of `POST /steps` or `POST /evals`. */
export const controlRecordSchema = z.discriminatedUnion("type", [
  stepStartRecordSchema,
  rowRecordSchema,
  groupDroppedRecordSchema,
  evalRowRecordSchema,
  evalEndRecordSchema,
  stepEndRecordSchema,
  evalsEndRecordSchema,
  errorRecordSchema,
]);
export type ControlRecord = z.infer<typeof controlRecordSchema>;

/** Every named schema, as exported into `docs/trainer-api.schema.json`. */
export const controlSchemas = {
  ErrorBody: controlErrorBodySchema,
  StepRequest: stepRequestSchema,
  EvalsRequest: evalsRequestSchema,
  PauseRequest: pauseRequestSchema,
  ResumeRequest: resumeRequestSchema,
  WeightsRequest: weightsRequestSchema,
  HealthResponse: healthResponseSchema,
  StatusResponse: statusResponseSchema,
  PauseResponse: pauseResponseSchema,
  ResumeResponse: resumeResponseSchema,
  WeightsResponse: weightsResponseSchema,
  Record: controlRecordSchema,
} as const;

/**
 * The control API as one JSON Schema document (draft 2020-12): each body under `$defs`, generated with
 * `z.toJSONSchema`. Cross-field row invariants are in the row's description only.
 */
export function createControlJsonSchema(): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(controlSchemas)) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
      target: "draft-2020-12",
      io: "input",
      unrepresentable: "any",
    }) as Record<string, unknown>;
    defs[name] = rest;
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "Relax trainer control API (relax serve, /rollout/v1)",
    description: "Request, response and NDJSON record bodies; see docs/trainer-api.md.",
    $defs: defs,
  };
}
