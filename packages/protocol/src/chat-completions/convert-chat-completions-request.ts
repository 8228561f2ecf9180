import {
  CanonicalizationError,
  canonicalizeMessages,
  canonicalizeTemplateKwargs,
  canonicalizeTools,
} from "@relax/chat";
import { collectIgnoredFields } from "../shared/collect-ignored-fields";
import { contractChangeWarnings } from "../shared/contract-change-warnings";
import { normalizeMessages, resolveHarnessNormalizers } from "../shared/harness-normalizers";
import { NOT_SUPPORTED, SAMPLING_FROM_ROLLOUT, USAGE_ALWAYS } from "../shared/ignored-fields";
import { parseWire } from "../shared/parse-wire";
import type { ConvertedRequest, ConvertOptions, ProtocolWarning } from "../shared/protocol";
import { readResponseFormat } from "../shared/read-response-format";
import { isPlainObject, typeName } from "../shared/type-name";
import { CHAT_COMPLETIONS_READ_FIELDS, chatCompletionsRequestSchema } from "./chat-completions-api";

/**
 * Chat Completions fields that are accepted and ignored, with the reason (documented in the README).
 * Any other unknown field is ignored too and reported as such.
 */
export const CHAT_COMPLETIONS_IGNORED_FIELDS: Readonly<Record<string, string>> = {
  temperature: SAMPLING_FROM_ROLLOUT,
  top_p: SAMPLING_FROM_ROLLOUT,
  top_k: SAMPLING_FROM_ROLLOUT,
  min_p: SAMPLING_FROM_ROLLOUT,
  presence_penalty: SAMPLING_FROM_ROLLOUT,
  frequency_penalty: SAMPLING_FROM_ROLLOUT,
  repetition_penalty: SAMPLING_FROM_ROLLOUT,
  logit_bias: SAMPLING_FROM_ROLLOUT,
  n: "one choice is generated per request",
  top_logprobs: "only the sampled token's logprob is returned",
  tool_choice: NOT_SUPPORTED,
  parallel_tool_calls: NOT_SUPPORTED,
  response_format: NOT_SUPPORTED,
  reasoning_effort: "set chat_template_kwargs (e.g. enable_thinking) instead",
  stream_options: USAGE_ALWAYS,
  user: NOT_SUPPORTED,
  metadata: NOT_SUPPORTED,
  store: NOT_SUPPORTED,
  service_tier: NOT_SUPPORTED,
  modalities: NOT_SUPPORTED,
  audio: NOT_SUPPORTED,
  prediction: NOT_SUPPORTED,
  web_search_options: NOT_SUPPORTED,
  verbosity: NOT_SUPPORTED,
  prompt_cache_key: NOT_SUPPORTED,
  safety_identifier: NOT_SUPPORTED,
  functions: "legacy `functions` are not supported; use `tools`",
  function_call: "legacy `function_call` is not supported; use `tools`",
};

/**
 * Projects a Chat Completions body to the canonical request (see docs/contract.md#chat-completions):
 * `messages` canonicalised (`developer` → `system`, an assistant `reasoning`
 * field accepted as `reasoning_content` since `@openai/agents` sends it back under that name), function
 * tools, `chat_template_kwargs` (reserved keys rejected), `max_completion_tokens` over `max_tokens`,
 * `stop`, `seed`, `logprobs`, `stream`. Sampling fields and other keys are ignored with a warning
 * (`response_format`, `tool_choice` other than `auto`, `parallel_tool_calls: false` as `contract-change`).
 * The harness normalisers (`options.normalizers`, all on by default) then apply: blank echoed
 * `arguments` → `{}`, billing-header lines stripped from system messages, a leading run of
 * system/developer messages merged. System messages later in the list stay where they are.
 *
 * @param body - the parsed JSON body.
 * @throws CanonicalizationError naming the field path, e.g. `messages[3].tool_calls[0].id`.
 */
export function convertChatCompletionsRequest(body: unknown, options: ConvertOptions = {}): ConvertedRequest {
  const normalizers = resolveHarnessNormalizers(options.normalizers);
  if (!isPlainObject(body)) {
    throw new CanonicalizationError({ path: "body", reason: `must be a JSON object, got ${typeName(body)}` });
  }
  const wire = parseWire(chatCompletionsRequestSchema, body, "");
  const warnings: ProtocolWarning[] = contractChangeWarnings(
    body,
    collectIgnoredFields({
      body,
      read: CHAT_COMPLETIONS_READ_FIELDS,
      known: CHAT_COMPLETIONS_IGNORED_FIELDS,
    }),
  );
  if (wire.messages === undefined) {
    throw new CanonicalizationError({ path: "messages", reason: "is required" });
  }
  const messages = normalizeMessages(
    canonicalizeMessages(aliasReasoning(wire.messages), {
      path: "messages",
      emptyArgumentsAsObject: normalizers.emptyToolArguments,
    }),
    normalizers,
  );
  const tools = canonicalizeTools(wire.tools, {
    onDropped: ({ path, type }) =>
      warnings.push({
        type: "dropped-tool",
        path,
        message: `${path} is dropped: only function tools are supported (type ${JSON.stringify(type) ?? "missing"})`,
      }),
  });
  const chatTemplateKwargs = canonicalizeTemplateKwargs(wire.chat_template_kwargs);
  const maxTokens = wire.max_completion_tokens ?? wire.max_tokens ?? undefined;
  const stop = wire.stop == null ? undefined : typeof wire.stop === "string" ? [wire.stop] : wire.stop;
  const responseFormat = readResponseFormat(body.response_format, "response_format", body.tool_choice);
  return {
    ...(responseFormat !== undefined ? { responseFormat } : {}),
    request: {
      messages,
      tools,
      chatTemplateKwargs,
      stream: wire.stream ?? false,
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(stop !== undefined && stop.length > 0 ? { stop } : {}),
      ...(wire.seed != null ? { seed: wire.seed } : {}),
      ...(wire.logprobs != null ? { logprobs: wire.logprobs } : {}),
      ...(wire.model != null ? { model: wire.model } : {}),
    },
    warnings,
  };
}

/** Copies an assistant `reasoning` string into `reasoning_content` when the latter is absent. */
function aliasReasoning(messages: unknown): unknown {
  if (!Array.isArray(messages)) return messages;
  return messages.map((message) =>
    isPlainObject(message) &&
    message.role === "assistant" &&
    message.reasoning_content == null &&
    typeof message.reasoning === "string"
      ? { ...message, reasoning_content: message.reasoning }
      : message,
  );
}
