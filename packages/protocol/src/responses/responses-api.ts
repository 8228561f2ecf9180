import { z } from "zod";

/**
 * Values of `reasoning.effort` Relax accepts; all but `none` enable thinking (see
 * docs/contract.md#responses).
 */
export const RESPONSES_REASONING_EFFORTS = [
  "none",
  "minimal",
  "low",
  "medium",
  "high",
  "xhigh",
  "max",
] as const;

/**
 * The top-level fields of a Responses request that Relax reads (see docs/contract.md#responses). `input`
 * items and `tools` are validated one by one with the schemas below, so errors name `input[3].call_id`.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
export const responsesRequestSchema = z.object({
  model: z.string().nullish(),
  /** A string (one user message) or the full list of typed items. */
  input: z.union([z.string(), z.array(z.unknown())]),
  /** Becomes a leading system message when non-empty. */
  instructions: z.string().nullish(),
  tools: z.array(z.unknown()).nullish(),
  /** Turn limit in tokens. */
  max_output_tokens: z.number().int().positive().nullish(),
  /** `effort` sets `chat_template_kwargs.enable_thinking` (`effort !== "none"`). */
  reasoning: z
    .object({
      effort: z.enum(RESPONSES_REASONING_EFFORTS).nullish(),
      /** When set, reasoning text is also written to the reply's `summary` (readers such as the AI SDK only read it). */
      summary: z.enum(["auto", "concise", "detailed"]).nullish(),
    })
    .nullish(),
  stream: z.boolean().nullish(),
  /** A committed response of this session whose conversation `input` continues. */
  previous_response_id: z.string().min(1).nullish(),
  /** Rejected when set, for the same reason. */
  conversation: z.unknown().optional(),
});

/** Fields read from a Responses body; any other key produces an `ignored-field` warning. */
export const RESPONSES_READ_FIELDS: ReadonlySet<string> = new Set(Object.keys(responsesRequestSchema.shape));

const inputTextPartSchema = z.object({ type: z.literal("input_text"), text: z.string() });
const outputTextPartSchema = z.object({ type: z.literal("output_text"), text: z.string() });
/** `image_url` is an http(s) URL or a `data:` URI; `file_id` references are not supported. */
const inputImagePartSchema = z.object({ type: z.literal("input_image"), image_url: z.string().min(1) });

/** A content part of a `message` item. `input_image` is accepted in user messages only. */
export const responsesContentPartSchema = z.discriminatedUnion("type", [
  inputTextPartSchema,
  outputTextPartSchema,
  inputImagePartSchema,
]);

/** A `message` item (`type` may be absent). `developer` becomes `system`. */
export const responsesMessageItemSchema = z.object({
  type: z.literal("message").optional(),
  role: z.enum(["user", "assistant", "system", "developer"]),
  content: z.union([z.string(), z.array(responsesContentPartSchema)]),
});

/** A `reasoning` item: text from `summary[*].text`, else `content[*].text`, joined with `"\n\n"`. */
export const responsesReasoningItemSchema = z.object({
  type: z.literal("reasoning"),
  summary: z.array(z.object({ text: z.string() })).nullish(),
  content: z.array(z.object({ text: z.string() })).nullish(),
});

/** A `function_call` item; `call_id` is kept as the tool-call id. */
export const responsesFunctionCallItemSchema = z.object({
  type: z.literal("function_call"),
  call_id: z.string().min(1),
  name: z.string().min(1),
  /** JSON text of an object. */
  arguments: z.string(),
});

/** A `function_call_output` item; `output` is a string or `input_text` / `input_image` parts. */
export const responsesFunctionCallOutputItemSchema = z.object({
  type: z.literal("function_call_output"),
  call_id: z.string().min(1),
  output: z.union([
    z.string(),
    z.array(z.discriminatedUnion("type", [inputTextPartSchema, outputTextPartSchema, inputImagePartSchema])),
  ]),
});

/** A flat function tool `{type: "function", name, parameters, description}`; other types are dropped. */
export const responsesFunctionToolSchema = z.object({
  type: z.literal("function"),
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
});

/** Item types Relax projects. */
export const RESPONSES_ITEM_TYPES = [
  "message",
  "reasoning",
  "function_call",
  "function_call_output",
  "item_reference",
  "compaction",
] as const;

/** `usage` of a Response, in tokens. */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  total_tokens: number;
}

/**
 * A `reasoning` output item: text in `content`; `summary` holds the same text as one `summary_text` part
 * when the request set `reasoning.summary`, else it is empty.
 */
export interface ResponsesReasoningItem {
  type: "reasoning";
  id: string;
  status: "in_progress" | "completed";
  summary: { type: "summary_text"; text: string }[];
  content: { type: "reasoning_text"; text: string }[];
}

/** An `output_text` content part. */
export interface ResponsesOutputText {
  type: "output_text";
  text: string;
  annotations: [];
  logprobs: [];
}

/** An assistant `message` output item. */
export interface ResponsesMessageItem {
  type: "message";
  id: string;
  /** `incomplete` when the turn was cut by the length limit. */
  status: "in_progress" | "completed" | "incomplete";
  role: "assistant";
  content: ResponsesOutputText[];
}

/** A `function_call` output item. */
export interface ResponsesFunctionCallItem {
  type: "function_call";
  id: string;
  status: "in_progress" | "completed";
  call_id: string;
  name: string;
  arguments: string;
}

/** An output item of a Response, in the order Relax writes them: reasoning, message, function calls. */
export type ResponsesOutputItem = ResponsesReasoningItem | ResponsesMessageItem | ResponsesFunctionCallItem;

/** Response `status` values Relax reports. */
export type ResponsesStatus = "in_progress" | "completed" | "incomplete" | "failed";

/**
 * A Response object (`object: "response"`).
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */
export interface ResponsesResponse {
  id: string;
  object: "response";
  /** Unix seconds. */
  created_at: number;
  status: ResponsesStatus;
  error: { code: string; message: string; type: string; param: string | null } | null;
  incomplete_details: { reason: "max_output_tokens" } | null;
  model: string;
  output: ResponsesOutputItem[];
  max_output_tokens: number | null;
  previous_response_id: string | null;
  store: false;
  usage: ResponsesUsage | null;
}
