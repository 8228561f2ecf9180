import {
  type AssistantTurn,
  CanonicalizationError,
  type CanonicalRequest,
  type ChatMessage,
} from "@relax/chat";
import type { ConvertedRequest, ConvertOptions } from "../shared/protocol";
import { assistantText, type ResponseContext } from "../shared/response-context";
import { isPlainObject, typeName } from "../shared/type-name";
import { toResponsesUsage } from "./build-responses-response";
import { convertResponsesRequest } from "./convert-responses-request";
import type { ResponsesUsage } from "./responses-api";
import { encodeCompactionContent, RESPONSES_COMPACTION_SUMMARY_PREFIX } from "./responses-compaction-content";

/**
 * The instruction the gateway appends (as a last user message) to the history of a
 * `POST /v1/responses/compact` request; the model's answer becomes the compaction summary.
 */
export const RESPONSES_COMPACTION_PROMPT =
  "Context compaction: write a summary of the conversation so far that lets you continue the task from it alone. " +
  "Keep the user's goal and constraints, what has been done and found (files, commands, results, errors), " +
  "decisions taken, and what remains to do. Answer with the summary only; do not call tools.";

/**
 * Projects a `POST /v1/responses/compact` body (`model`, `input`, `instructions`, `tools`,
 * `parallel_tool_calls`, `reasoning`, `text`, as Codex CLI's remote compaction sends it) to the canonical
 * request of the compaction turn: the Responses projection of the same history, never streamed, without
 * tools (the turn writes a summary), and {@link RESPONSES_COMPACTION_PROMPT} as the last user message.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/compact
 * @throws CanonicalizationError naming the field path, as {@link convertResponsesRequest}.
 */
export function convertResponsesCompactRequest(
  body: unknown,
  options: ConvertOptions = {},
): ConvertedRequest {
  if (!isPlainObject(body)) {
    throw new CanonicalizationError({ path: "body", reason: `must be a JSON object, got ${typeName(body)}` });
  }
  if (body.stream === true) {
    throw new CanonicalizationError({
      path: "stream",
      reason: "is not supported: /responses/compact is unary",
    });
  }
  // The compaction turn is tool-less and unconstrained: the history's tools and text format do not apply.
  const { tools: _tools, text: _text, parallel_tool_calls: _parallel, ...rest } = body;
  const converted = convertResponsesRequest({ ...rest, stream: false }, options);
  const messages: ChatMessage[] = [
    ...converted.request.messages,
    { role: "user", content: RESPONSES_COMPACTION_PROMPT },
  ];
  const { responseFormat: _format, ...others } = converted;
  return { ...others, request: { ...converted.request, messages, tools: [], stream: false } };
}

/** A `message` item of a compacted window (the retained user messages). */
export interface ResponsesCompactedMessageItem {
  id: string;
  type: "message";
  role: "user";
  status: "completed";
  content: Array<{ type: "input_text"; text: string }>;
}

/** The `compaction` item: the rest of the history, replaced by an opaque summary. */
export interface ResponsesCompactionItem {
  id: string;
  type: "compaction";
  encrypted_content: string;
}

/** The reply of `POST /v1/responses/compact` (`object: "response.compaction"`). */
export interface ResponsesCompactionResponse {
  id: string;
  object: "response.compaction";
  /** Unix seconds. */
  created_at: number;
  output: Array<ResponsesCompactedMessageItem | ResponsesCompactionItem>;
  usage: ResponsesUsage;
}

/**
 * Renders the compaction turn as OpenAI's compacted window: the history's user messages (text parts;
 * the appended compaction prompt and replayed summaries excluded) as `message` items, then one
 * `compaction` item whose `encrypted_content` holds the generated summary ({@link encodeCompactionContent}).
 * Codex CLI replaces its history with `output` and sends it back as the next request's `input`.
 */
export function buildResponsesCompactionResponse({
  turn,
  request,
  context,
}: {
  turn: AssistantTurn;
  request: CanonicalRequest;
  context: ResponseContext;
}): ResponsesCompactionResponse {
  const retained: ResponsesCompactedMessageItem[] = [];
  for (const message of request.messages.slice(0, -1)) {
    if (message.role !== "user") continue;
    const text =
      typeof message.content === "string"
        ? message.content
        : message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
    if (text === "" || text.startsWith(RESPONSES_COMPACTION_SUMMARY_PREFIX)) continue;
    retained.push({
      id: context.createId("msg"),
      type: "message",
      role: "user",
      status: "completed",
      content: [{ type: "input_text", text }],
    });
  }
  return {
    id: context.id,
    object: "response.compaction",
    created_at: context.created,
    output: [
      ...retained,
      {
        id: context.createId("cmp"),
        type: "compaction",
        encrypted_content: encodeCompactionContent(assistantText(turn.message)),
      },
    ],
    usage: toResponsesUsage(turn.usage),
  };
}
