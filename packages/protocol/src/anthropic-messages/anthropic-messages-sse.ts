import type { ErrorDescriptor } from "../errors/describe-error";
import { formatSseFrame, type SseEvent } from "../sse/format-sse-frame";
import type { AnthropicMessagesContentBlock, AnthropicMessagesResponse } from "./anthropic-messages-api";
import { buildAnthropicMessagesErrorBody } from "./anthropic-messages-error";

const PING: SseEvent = { event: "ping", data: JSON.stringify({ type: "ping" }) };

/** Written as soon as a Messages stream opens: `event: ping` (Anthropic streams have no comments). */
export const ANTHROPIC_MESSAGES_CONNECTED_FRAME = formatSseFrame(PING);
/** Written after each quiet interval while generation runs: the same ping. */
export const ANTHROPIC_MESSAGES_HEARTBEAT_FRAME = formatSseFrame(PING);

function event(type: string, fields: Record<string, unknown>): SseEvent {
  return { event: type, data: JSON.stringify({ type, ...fields }) };
}

/**
 * The terminal event sequence of a buffered Messages stream, as Claude Code and the Anthropic SDK's
 * `MessageStream` fold it, derived from the non-streaming reply:
 * `message_start` (content `[]`, `stop_reason: null`, `output_tokens: 0`); per block
 * `content_block_start` (empty text / thinking with empty signature / tool_use with `input: {}`),
 * `content_block_delta` (`text_delta`; `thinking_delta` then `signature_delta`; `input_json_delta` with
 * the compact JSON), `content_block_stop`; then `message_delta` (`stop_reason`, `stop_sequence`, usage)
 * and `message_stop`.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
export function buildAnthropicMessagesSseEvents(message: AnthropicMessagesResponse): SseEvent[] {
  const events: SseEvent[] = [
    event("message_start", {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...message.usage, output_tokens: 0 },
      },
    }),
  ];
  message.content.forEach((block, index) => {
    events.push(event("content_block_start", { index, content_block: emptyBlock(block) }));
    for (const delta of blockDeltas(block)) events.push(event("content_block_delta", { index, delta }));
    events.push(event("content_block_stop", { index }));
  });
  events.push(
    event("message_delta", {
      delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
      usage: message.usage,
    }),
  );
  events.push(event("message_stop", {}));
  return events;
}

function emptyBlock(block: AnthropicMessagesContentBlock): AnthropicMessagesContentBlock {
  switch (block.type) {
    case "thinking":
      return { type: "thinking", thinking: "", signature: "" };
    case "text":
      return { type: "text", text: "" };
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: {} };
  }
}

function blockDeltas(block: AnthropicMessagesContentBlock): Record<string, unknown>[] {
  switch (block.type) {
    case "thinking":
      return [
        { type: "thinking_delta", thinking: block.thinking },
        { type: "signature_delta", signature: block.signature },
      ];
    case "text":
      return [{ type: "text_delta", text: block.text }];
    case "tool_use":
      return [{ type: "input_json_delta", partial_json: JSON.stringify(block.input) }];
  }
}

/** The failure terminal sequence: `event: error` with the Anthropic error body (the SDK throws on it). */
export function buildAnthropicMessagesSseErrorEvents(descriptor: ErrorDescriptor): SseEvent[] {
  return [{ event: "error", data: JSON.stringify(buildAnthropicMessagesErrorBody(descriptor)) }];
}
