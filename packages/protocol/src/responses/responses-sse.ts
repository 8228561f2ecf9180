import type { ErrorDescriptor } from "../errors/describe-error";
import { formatSseComment, type SseEvent } from "../sse/format-sse-frame";
import type { ResponsesOutputItem, ResponsesResponse } from "./responses-api";
import { buildResponsesErrorObject } from "./responses-error";

/** Written as soon as a Responses stream opens (an SSE comment). */
export const RESPONSES_CONNECTED_FRAME = formatSseComment("connected");
/** Written after each quiet interval while generation runs. */
export const RESPONSES_HEARTBEAT_FRAME = formatSseComment("heartbeat");

/** Numbers events in order (`sequence_number` from 0) and names each SSE frame after its `type`. */
class ResponsesEventWriter {
  readonly events: SseEvent[] = [];
  emit(type: string, fields: Record<string, unknown>): void {
    const data = { type, sequence_number: this.events.length, ...fields };
    this.events.push({ event: type, data: JSON.stringify(data) });
  }
}

/**
 * The terminal event sequence of a buffered Responses stream: the full event family that Codex CLI, the
 * OpenAI SDK's `ResponseStream` and `@openai/agents` fold into a Response, derived from the
 * non-streaming Response so both carry the same ids:
 * `response.created`, `response.in_progress`; per output item `response.output_item.added`, then
 * - reasoning: `response.content_part.added` (`reasoning_text`), `response.reasoning_text.delta`,
 *   `response.reasoning_text.done`, `response.content_part.done`;
 * - message: `response.content_part.added` (`output_text`), `response.output_text.delta`,
 *   `response.output_text.done`, `response.content_part.done`;
 * - function call: `response.function_call_arguments.delta`, `response.function_call_arguments.done`;
 *
 * then `response.output_item.done`; finally `response.completed` or `response.incomplete` with the full
 * Response. Each delta holds the whole text (the generation is buffered). Every frame is
 * `event: <type>\ndata: <json with type and sequence_number>\n\n`.
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export function buildResponsesSseEvents(response: ResponsesResponse): SseEvent[] {
  const writer = new ResponsesEventWriter();
  const inProgress: ResponsesResponse = {
    ...response,
    status: "in_progress",
    incomplete_details: null,
    output: [],
    usage: null,
  };
  writer.emit("response.created", { response: inProgress });
  writer.emit("response.in_progress", { response: inProgress });
  response.output.forEach((item, outputIndex) => {
    emitItem(writer, item, outputIndex);
  });
  writer.emit(response.status === "incomplete" ? "response.incomplete" : "response.completed", { response });
  return writer.events;
}

function emitItem(writer: ResponsesEventWriter, item: ResponsesOutputItem, outputIndex: number): void {
  const at = { item_id: item.id, output_index: outputIndex };
  switch (item.type) {
    case "reasoning": {
      writer.emit("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, status: "in_progress", summary: [], content: [] },
      });
      // Present when the request set `reasoning.summary` (the AI SDK streams reasoning from these only).
      item.summary.forEach((part, summaryIndex) => {
        const where = { ...at, summary_index: summaryIndex };
        writer.emit("response.reasoning_summary_part.added", {
          ...where,
          part: { type: "summary_text", text: "" },
        });
        if (part.text !== "")
          writer.emit("response.reasoning_summary_text.delta", { ...where, delta: part.text });
        writer.emit("response.reasoning_summary_text.done", { ...where, text: part.text });
        writer.emit("response.reasoning_summary_part.done", { ...where, part });
      });
      item.content.forEach((part, contentIndex) => {
        const where = { ...at, content_index: contentIndex };
        writer.emit("response.content_part.added", { ...where, part: { type: "reasoning_text", text: "" } });
        if (part.text !== "") writer.emit("response.reasoning_text.delta", { ...where, delta: part.text });
        writer.emit("response.reasoning_text.done", { ...where, text: part.text });
        writer.emit("response.content_part.done", { ...where, part });
      });
      break;
    }
    case "message": {
      writer.emit("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, status: "in_progress", content: [] },
      });
      item.content.forEach((part, contentIndex) => {
        const where = { ...at, content_index: contentIndex };
        writer.emit("response.content_part.added", { ...where, part: { ...part, text: "" } });
        if (part.text !== "") {
          writer.emit("response.output_text.delta", { ...where, delta: part.text, logprobs: [] });
        }
        writer.emit("response.output_text.done", { ...where, text: part.text, logprobs: [] });
        writer.emit("response.content_part.done", { ...where, part });
      });
      break;
    }
    case "function_call": {
      writer.emit("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      writer.emit("response.function_call_arguments.delta", { ...at, delta: item.arguments });
      writer.emit("response.function_call_arguments.done", {
        ...at,
        name: item.name,
        arguments: item.arguments,
      });
      break;
    }
  }
  writer.emit("response.output_item.done", { output_index: outputIndex, item });
}

/**
 * The failure terminal sequence: `response.created`, `response.in_progress`, then `response.failed`
 * whose Response has `status: "failed"` and `error: {code, message, type, param}` (Codex reads `code`).
 *
 * @param shell - the in-progress Response ({@link createResponsesShell}).
 */
export function buildResponsesSseErrorEvents({
  descriptor,
  shell,
}: {
  descriptor: ErrorDescriptor;
  shell: ResponsesResponse;
}): SseEvent[] {
  const writer = new ResponsesEventWriter();
  writer.emit("response.created", { response: shell });
  writer.emit("response.in_progress", { response: shell });
  writer.emit("response.failed", {
    response: { ...shell, status: "failed", error: buildResponsesErrorObject(descriptor) },
  });
  return writer.events;
}
