import type { AssistantTurn, CanonicalRequest, TokenLogprob, TurnUsage } from "@relax/chat";
import { assistantText, type ResponseContext } from "../shared/response-context";
import type {
  ChatCompletion,
  ChatCompletionsAssistantMessage,
  ChatCompletionsTokenLogprob,
  ChatCompletionsUsage,
} from "./chat-completions-api";
import { mapChatCompletionsFinishReason } from "./map-chat-completions-finish-reason";

/**
 * Renders a generation result as a Chat Completions reply (`object: "chat.completion"`): the assistant
 * message with `reasoning_content` (and `reasoning`) and `tool_calls`, the finish reason, usage, and
 * `logprobs` when the request asked for them. The streamed form is derived from this object, so both
 * carry the same ids and values.
 *
 * @see https://platform.openai.com/docs/api-reference/chat/object
 */
export function buildChatCompletionsResponse({
  turn,
  request,
  context,
}: {
  turn: AssistantTurn;
  request: CanonicalRequest;
  context: ResponseContext;
}): ChatCompletion {
  const toolCalls = turn.message.tool_calls ?? [];
  const text = assistantText(turn.message);
  const message: ChatCompletionsAssistantMessage = {
    role: "assistant",
    content: text === "" && toolCalls.length > 0 ? null : text,
  };
  const reasoning = turn.message.reasoning_content;
  if (reasoning !== undefined && reasoning !== "") {
    message.reasoning_content = reasoning;
    message.reasoning = reasoning;
  }
  if (toolCalls.length > 0) {
    message.tool_calls = toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.function.name, arguments: call.function.arguments },
    }));
  }
  return {
    id: context.id,
    object: "chat.completion",
    created: context.created,
    model: context.model,
    choices: [
      {
        index: 0,
        message,
        logprobs:
          request.logprobs === true ? { content: toChatLogprobs(turn.logprobs ?? []), refusal: null } : null,
        finish_reason: mapChatCompletionsFinishReason({
          finishReason: turn.finishReason,
          hasToolCalls: toolCalls.length > 0,
        }),
      },
    ],
    usage: toChatUsage(turn.usage),
  };
}

function toChatLogprobs(logprobs: TokenLogprob[]): ChatCompletionsTokenLogprob[] {
  return logprobs.map((entry) => ({
    token: entry.token,
    logprob: entry.logprob,
    bytes: entry.bytes,
    top_logprobs: [],
  }));
}

/** Canonical usage → OpenAI Chat `usage` (`prompt_tokens_details.cached_tokens` when known). */
export function toChatUsage(usage: TurnUsage): ChatCompletionsUsage {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...(usage.cachedTokens != null ? { prompt_tokens_details: { cached_tokens: usage.cachedTokens } } : {}),
  };
}
