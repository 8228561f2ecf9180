import type { ErrorDescriptor } from "../errors/describe-error";
import { formatSseComment, type SseEvent } from "../sse/format-sse-frame";
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionsDelta } from "./chat-completions-api";
import { buildChatCompletionsErrorBody } from "./chat-completions-error";

/** Written as soon as a Chat Completions stream opens (an SSE comment). */
export const CHAT_COMPLETIONS_CONNECTED_FRAME = formatSseComment("connected");
/** Written after each quiet interval while generation runs. */
export const CHAT_COMPLETIONS_HEARTBEAT_FRAME = formatSseComment("heartbeat");

/**
 * The terminal event sequence of a buffered Chat Completions stream, derived from the non-streaming
 * reply so both carry the same ids and values. One `chat.completion.chunk` per part, as OpenAI-compatible
 * servers send them, so every accumulator sees the shape it expects:
 * 1. `{role: "assistant", content: ""}` (`content: null` for a tool-call-only turn);
 * 2. `{reasoning_content, reasoning}` when there is reasoning;
 * 3. `{content}` when there is text;
 * 4. one `{tool_calls: [{index, id, type, function: {name, arguments}}]}` per tool call;
 * 5. `{}` with `finish_reason`, `logprobs` (when asked) and the full `usage` — on the last chunk, with no
 *    separate usage chunk, whatever `stream_options` said (see docs/contract.md#buffered-sse);
 *
 * then `data: [DONE]`.
 *
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */
export function buildChatCompletionsSseEvents(completion: ChatCompletion): SseEvent[] {
  const [choice] = completion.choices;
  const { message } = choice;
  const chunk = (
    delta: ChatCompletionsDelta,
    last?: Pick<ChatCompletionChunk, "usage"> & { finish: ChatCompletion["choices"][0] },
  ): SseEvent => {
    const body: ChatCompletionChunk = {
      id: completion.id,
      object: "chat.completion.chunk",
      created: completion.created,
      model: completion.model,
      choices: [
        {
          index: 0,
          delta,
          logprobs: last ? last.finish.logprobs : null,
          finish_reason: last ? last.finish.finish_reason : null,
        },
      ],
    };
    if (last?.usage) body.usage = last.usage;
    return { data: JSON.stringify(body) };
  };
  const events: SseEvent[] = [chunk({ role: "assistant", content: message.content === null ? null : "" })];
  if (message.reasoning_content !== undefined) {
    events.push(
      chunk({ reasoning_content: message.reasoning_content, reasoning: message.reasoning_content }),
    );
  }
  if (message.content !== null && message.content !== "") events.push(chunk({ content: message.content }));
  (message.tool_calls ?? []).forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, ...call }] }));
  });
  events.push(chunk({}, { finish: choice, usage: completion.usage }));
  events.push({ data: "[DONE]" });
  return events;
}

/**
 * The failure terminal sequence: the OpenAI error body as a data frame, then `[DONE]` (the OpenAI SDK
 * throws an `APIError` on a chunk with an `error` key).
 */
export function buildChatCompletionsSseErrorEvents(descriptor: ErrorDescriptor): SseEvent[] {
  return [{ data: JSON.stringify(buildChatCompletionsErrorBody(descriptor)) }, { data: "[DONE]" }];
}
