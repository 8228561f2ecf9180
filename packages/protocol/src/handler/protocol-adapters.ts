import type { AssistantTurn, CanonicalRequest } from "@relax/chat";
import {
  ANTHROPIC_MESSAGES_CONNECTED_FRAME,
  ANTHROPIC_MESSAGES_HEARTBEAT_FRAME,
  buildAnthropicMessagesSseErrorEvents,
  buildAnthropicMessagesSseEvents,
} from "../anthropic-messages/anthropic-messages-sse";
import { buildAnthropicMessagesResponse } from "../anthropic-messages/build-anthropic-messages-response";
import { convertAnthropicMessagesRequest } from "../anthropic-messages/convert-anthropic-messages-request";
import { buildChatCompletionsResponse } from "../chat-completions/build-chat-completions-response";
import {
  buildChatCompletionsSseErrorEvents,
  buildChatCompletionsSseEvents,
  CHAT_COMPLETIONS_CONNECTED_FRAME,
  CHAT_COMPLETIONS_HEARTBEAT_FRAME,
} from "../chat-completions/chat-completions-sse";
import { convertChatCompletionsRequest } from "../chat-completions/convert-chat-completions-request";
import type { ErrorDescriptor } from "../errors/describe-error";
import { buildResponsesResponse, createResponsesShell } from "../responses/build-responses-response";
import { convertResponsesRequest } from "../responses/convert-responses-request";
import {
  buildResponsesCompactionResponse,
  convertResponsesCompactRequest,
} from "../responses/responses-compaction";
import {
  buildResponsesSseErrorEvents,
  buildResponsesSseEvents,
  RESPONSES_CONNECTED_FRAME,
  RESPONSES_HEARTBEAT_FRAME,
} from "../responses/responses-sse";
import type { ConvertedRequest, ConvertOptions, Protocol, ReplyOptions } from "../shared/protocol";
import type { ResponseContext } from "../shared/response-context";
import type { SseEvent } from "../sse/format-sse-frame";

/** Everything the handler needs from one protocol folder. */
export interface ProtocolAdapter {
  protocol: Protocol;
  /** Prefix of the reply id (`chatcmpl`, `resp`, `msg`). */
  idPrefix: string;
  convertRequest(body: unknown, options?: ConvertOptions): ConvertedRequest;
  /** Renders the JSON reply; the SSE events are derived from the same object. */
  buildReply(input: {
    turn: AssistantTurn;
    request: CanonicalRequest;
    context: ResponseContext;
    reply?: ReplyOptions;
  }): {
    json: unknown;
    events: () => SseEvent[];
  };
  buildErrorEvents(input: {
    descriptor: ErrorDescriptor;
    request: CanonicalRequest;
    context: ResponseContext;
    reply?: ReplyOptions;
  }): SseEvent[];
  connectedFrame: string;
  heartbeatFrame: string;
}

/** The three protocol adapters, keyed by protocol. */
export const PROTOCOL_ADAPTERS: Readonly<Record<Protocol, ProtocolAdapter>> = {
  "chat-completions": {
    protocol: "chat-completions",
    idPrefix: "chatcmpl",
    convertRequest: convertChatCompletionsRequest,
    buildReply: (input) => {
      const json = buildChatCompletionsResponse(input);
      return { json, events: () => buildChatCompletionsSseEvents(json) };
    },
    buildErrorEvents: ({ descriptor }) => buildChatCompletionsSseErrorEvents(descriptor),
    connectedFrame: CHAT_COMPLETIONS_CONNECTED_FRAME,
    heartbeatFrame: CHAT_COMPLETIONS_HEARTBEAT_FRAME,
  },
  responses: {
    protocol: "responses",
    idPrefix: "resp",
    convertRequest: convertResponsesRequest,
    buildReply: (input) => {
      const json = buildResponsesResponse(input);
      return { json, events: () => buildResponsesSseEvents(json) };
    },
    buildErrorEvents: ({ descriptor, request, context, reply }) =>
      buildResponsesSseErrorEvents({
        descriptor,
        shell: createResponsesShell({ request, context, ...(reply !== undefined ? { reply } : {}) }),
      }),
    connectedFrame: RESPONSES_CONNECTED_FRAME,
    heartbeatFrame: RESPONSES_HEARTBEAT_FRAME,
  },
  "anthropic-messages": {
    protocol: "anthropic-messages",
    idPrefix: "msg",
    convertRequest: convertAnthropicMessagesRequest,
    buildReply: (input) => {
      const json = buildAnthropicMessagesResponse(input);
      return { json, events: () => buildAnthropicMessagesSseEvents(json) };
    },
    buildErrorEvents: ({ descriptor }) => buildAnthropicMessagesSseErrorEvents(descriptor),
    connectedFrame: ANTHROPIC_MESSAGES_CONNECTED_FRAME,
    heartbeatFrame: ANTHROPIC_MESSAGES_HEARTBEAT_FRAME,
  },
};

/**
 * `POST /v1/responses/compact`: a compaction turn on the request's history, answered as OpenAI's
 * `response.compaction` object (unary; errors in the Responses format). Never streamed, so it has no events.
 */
export const RESPONSES_COMPACT_ADAPTER: ProtocolAdapter = {
  ...PROTOCOL_ADAPTERS.responses,
  convertRequest: convertResponsesCompactRequest,
  buildReply: (input) => ({ json: buildResponsesCompactionResponse(input), events: () => [] }),
};
