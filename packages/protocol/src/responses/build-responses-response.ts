import type { AssistantTurn, CanonicalRequest, TurnUsage } from "@relax/chat";
import type { ReplyOptions } from "../shared/protocol";
import { assistantText, type ResponseContext } from "../shared/response-context";
import { mapResponsesFinishReason } from "./map-responses-finish-reason";
import type { ResponsesOutputItem, ResponsesResponse, ResponsesUsage } from "./responses-api";

/**
 * The Response object before generation finished (`status: "in_progress"`, no output, no usage): what
 * `response.created` carries, and the shell of a failed Response.
 */
export function createResponsesShell({
  request,
  context,
  reply = {},
}: {
  request: CanonicalRequest;
  context: ResponseContext;
  reply?: ReplyOptions;
}): ResponsesResponse {
  return {
    id: context.id,
    object: "response",
    created_at: context.created,
    status: "in_progress",
    error: null,
    incomplete_details: null,
    max_output_tokens: request.maxTokens ?? null,
    model: context.model,
    output: [],
    previous_response_id: reply.previousResponseId ?? null,
    store: false,
    usage: null,
  };
}

/**
 * Renders a generation result as a Response (`object: "response"`). Output items, in order: one
 * `reasoning` item (text in `content[0].reasoning_text`), one assistant `message` with an `output_text`
 * part (omitted when the text is empty and other items exist), one `function_call` item per tool call
 * (`call_id` is the canonical tool-call id). A length cut gives `status: "incomplete"` with
 * `incomplete_details.reason = "max_output_tokens"`. With `reply.reasoningSummary` (the request set
 * `reasoning.summary`) the reasoning text is also the item's one `summary_text` part.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */
export function buildResponsesResponse({
  turn,
  request,
  context,
  reply = {},
}: {
  turn: AssistantTurn;
  request: CanonicalRequest;
  context: ResponseContext;
  reply?: ReplyOptions;
}): ResponsesResponse {
  const { status, incomplete_details } = mapResponsesFinishReason(turn.finishReason);
  const output: ResponsesOutputItem[] = [];
  const reasoning = turn.message.reasoning_content;
  if (reasoning !== undefined && reasoning !== "") {
    output.push({
      type: "reasoning",
      id: context.createId("rs"),
      status: "completed",
      summary: reply.reasoningSummary === true ? [{ type: "summary_text", text: reasoning }] : [],
      content: [{ type: "reasoning_text", text: reasoning }],
    });
  }
  const text = assistantText(turn.message);
  const toolCalls = turn.message.tool_calls ?? [];
  if (text !== "" || (output.length === 0 && toolCalls.length === 0)) {
    output.push({
      type: "message",
      id: context.createId("msg"),
      status: status === "incomplete" ? "incomplete" : "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
    });
  }
  for (const call of toolCalls) {
    output.push({
      type: "function_call",
      id: context.createId("fc"),
      status: "completed",
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  }
  return {
    ...createResponsesShell({ request, context, reply }),
    status,
    incomplete_details,
    output,
    usage: toResponsesUsage(turn.usage),
  };
}

/** Canonical usage → Responses `usage`. */
export function toResponsesUsage(usage: TurnUsage): ResponsesUsage {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    output_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}
