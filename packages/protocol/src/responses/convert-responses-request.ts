import { CanonicalizationError, canonicalizeTemplateKwargs, canonicalizeTools } from "@relax/chat";
import { canonicalToolArguments } from "@relax/chat/internal";
import {
  canonicalizeProjectedMessages,
  type MessageOrigin,
  type ProjectedMessage,
  type ProjectedPart,
} from "../shared/canonicalize-projected-messages";
import { collectIgnoredFields } from "../shared/collect-ignored-fields";
import { contractChangeWarnings } from "../shared/contract-change-warnings";
import type { ConversationHistory } from "../shared/conversation-history";
import { normalizeMessages, resolveHarnessNormalizers } from "../shared/harness-normalizers";
import { NOT_SUPPORTED, SAMPLING_FROM_ROLLOUT } from "../shared/ignored-fields";
import { parseWire } from "../shared/parse-wire";
import type { ConvertedRequest, ConvertOptions, ProtocolWarning } from "../shared/protocol";
import { readResponseFormat } from "../shared/read-response-format";
import { isPlainObject, typeName } from "../shared/type-name";
import {
  RESPONSES_ITEM_TYPES,
  RESPONSES_READ_FIELDS,
  responsesFunctionCallItemSchema,
  responsesFunctionCallOutputItemSchema,
  responsesFunctionToolSchema,
  responsesMessageItemSchema,
  responsesReasoningItemSchema,
  responsesRequestSchema,
} from "./responses-api";
import { decodeCompactionContent, RESPONSES_COMPACTION_SUMMARY_PREFIX } from "./responses-compaction-content";

/** Responses fields that are accepted and ignored, with the reason (documented in the README). */
export const RESPONSES_IGNORED_FIELDS: Readonly<Record<string, string>> = {
  temperature: SAMPLING_FROM_ROLLOUT,
  top_p: SAMPLING_FROM_ROLLOUT,
  top_logprobs: "logprobs are not returned on the Responses API",
  stop: "not part of the Responses API; use Chat Completions `stop`",
  seed: "not part of the Responses API; use Chat Completions `seed`",
  logprobs: "not part of the Responses API; use Chat Completions `logprobs`",
  tool_choice: NOT_SUPPORTED,
  parallel_tool_calls: NOT_SUPPORTED,
  max_tool_calls: NOT_SUPPORTED,
  text: NOT_SUPPORTED,
  truncation: NOT_SUPPORTED,
  include: NOT_SUPPORTED,
  store: "responses are never stored; send the full history",
  metadata: NOT_SUPPORTED,
  user: NOT_SUPPORTED,
  service_tier: NOT_SUPPORTED,
  background: NOT_SUPPORTED,
  prompt: NOT_SUPPORTED,
  prompt_cache_key: NOT_SUPPORTED,
  prompt_cache_retention: NOT_SUPPORTED,
  safety_identifier: NOT_SUPPORTED,
  stream_options: "usage is always included",
  client_metadata: NOT_SUPPORTED,
};

const FULL_HISTORY = "Relax keeps no server-side state; send the full conversation in `input`";

interface PendingAssistant {
  path: string;
  parts: ProjectedPart[];
  contentPath?: string;
  reasoning: string[];
  toolCalls: NonNullable<ProjectedMessage["tool_calls"]>;
  toolCallPaths: string[];
}

/**
 * Projects a Responses body to the canonical request (see docs/contract.md#responses):
 * - `instructions` becomes a leading system message; a string `input` one user message;
 * - `message` items (roles user/assistant/system/developer, `input_text`/`output_text`, user
 *   `input_image`) become messages; `reasoning` items become `reasoning_content`; `function_call` items
 *   become tool calls keeping `call_id`; `function_call_output` items become tool messages;
 * - consecutive assistant, reasoning and function_call items are coalesced into one assistant message;
 * - flat function tools; `max_output_tokens`; `reasoning.effort` → `{enable_thinking: effort !== "none"}`.
 *
 * - server-side state, resolved against `options.history` (this session's committed responses):
 *   `previous_response_id` continues that response's conversation (its `instructions` are not carried
 *   over, as OpenAI documents), an `item_reference` item stands for the output item it names; an unknown
 *   id (or no history) is a 400 naming the field;
 * - the harness normalisers (`options.normalizers`): blank `function_call.arguments` → `{}`, billing-header
 *   lines stripped, the leading run of system/developer messages merged into one;
 * - `reasoning.summary` set → the reply's reasoning items carry their text in `summary` too.
 *
 * @param body - the parsed JSON body.
 * @throws CanonicalizationError naming the field path (`input[0].call_id`, `previous_response_id`);
 *   `conversation` is rejected because the full history is required.
 */
export function convertResponsesRequest(body: unknown, options: ConvertOptions = {}): ConvertedRequest {
  if (!isPlainObject(body)) {
    throw new CanonicalizationError({ path: "body", reason: `must be a JSON object, got ${typeName(body)}` });
  }
  if (body.conversation != null) {
    throw new CanonicalizationError({ path: "conversation", reason: `is not supported: ${FULL_HISTORY}` });
  }
  const normalizers = resolveHarnessNormalizers(options.normalizers);
  const { history } = options;
  const wire = parseWire(responsesRequestSchema, body, "");
  const warnings: ProtocolWarning[] = contractChangeWarnings(
    body,
    collectIgnoredFields({ body, read: RESPONSES_READ_FIELDS, known: RESPONSES_IGNORED_FIELDS }),
  );
  const messages: ProjectedMessage[] = [];
  const origins: MessageOrigin[] = [];
  const hasInstructions = wire.instructions != null && wire.instructions !== "";
  if (hasInstructions) {
    messages.push({ role: "system", content: wire.instructions! });
    origins.push({ path: "instructions", contentPath: "instructions" });
  }
  if (wire.previous_response_id != null) {
    const previous = resolvePrevious(wire.previous_response_id, history);
    for (const message of previous.messages) {
      messages.push(message as ProjectedMessage);
      origins.push({ path: "previous_response_id" });
    }
  }
  if (typeof wire.input === "string") {
    messages.push({ role: "user", content: wire.input });
    origins.push({ path: "input", contentPath: "input" });
  } else {
    if (wire.input.length === 0) {
      throw new CanonicalizationError({ path: "input", reason: "must contain at least one item" });
    }
    projectItems(wire.input, messages, origins, {
      history,
      emptyArgumentsAsObject: normalizers.emptyToolArguments,
    });
  }
  const effort = wire.reasoning?.effort;
  const canonical = canonicalizeProjectedMessages({ messages, origins, emptyPath: "input" });
  const responseFormat = readResponseFormat(
    isPlainObject(body.text) ? body.text.format : undefined,
    "text.format",
    body.tool_choice,
  );
  return {
    continuation: { messages: hasInstructions ? canonical.slice(1) : canonical },
    reply: {
      ...(wire.reasoning?.summary != null ? { reasoningSummary: true } : {}),
      ...(wire.previous_response_id != null ? { previousResponseId: wire.previous_response_id } : {}),
    },
    ...(responseFormat !== undefined ? { responseFormat } : {}),
    request: {
      messages: normalizeMessages(canonical, normalizers),
      tools: convertTools(wire.tools, warnings),
      chatTemplateKwargs: canonicalizeTemplateKwargs(
        effort != null ? { enable_thinking: effort !== "none" } : {},
      ),
      stream: wire.stream ?? false,
      ...(wire.max_output_tokens != null ? { maxTokens: wire.max_output_tokens } : {}),
      ...(wire.model != null ? { model: wire.model } : {}),
    },
    warnings,
  };
}

function resolvePrevious(id: string, history: ConversationHistory | undefined) {
  if (history === undefined) {
    throw new CanonicalizationError({
      path: "previous_response_id",
      reason: `is not supported: ${FULL_HISTORY}`,
    });
  }
  const previous = history.reply(id);
  if (previous === undefined) {
    throw new CanonicalizationError({
      path: "previous_response_id",
      reason: `unknown response id ${JSON.stringify(id)}: not a recent committed response of this session`,
    });
  }
  return previous;
}

function projectItems(
  items: unknown[],
  messages: ProjectedMessage[],
  origins: MessageOrigin[],
  options: { history: ConversationHistory | undefined; emptyArgumentsAsObject: boolean },
): void {
  let pending: PendingAssistant | undefined;
  const assistant = (path: string): PendingAssistant => {
    pending ??= { path, parts: [], reasoning: [], toolCalls: [], toolCallPaths: [] };
    return pending;
  };
  const flush = () => {
    if (!pending) return;
    messages.push({
      role: "assistant",
      content: pending.parts.length > 0 ? pending.parts : null,
      ...(pending.reasoning.length > 0 ? { reasoning_content: pending.reasoning.join("\n\n") } : {}),
      ...(pending.toolCalls.length > 0 ? { tool_calls: pending.toolCalls } : {}),
    });
    origins.push({
      path: pending.path,
      contentPath: pending.contentPath,
      toolCallPaths: pending.toolCallPaths,
    });
    pending = undefined;
  };
  items.forEach((raw, i) => {
    const path = `input[${i}]`;
    if (!isPlainObject(raw)) {
      throw new CanonicalizationError({ path, reason: `must be an item object, got ${typeName(raw)}` });
    }
    const item = raw.type === "item_reference" ? resolveItem(raw, path, options.history) : raw;
    const type = item.type ?? (item.role !== undefined ? "message" : undefined);
    switch (type) {
      case "message": {
        const message = parseWire(responsesMessageItemSchema, item, path);
        const parts = projectContent(message.content, `${path}.content`, message.role === "user");
        if (message.role === "assistant") {
          const target = assistant(path);
          target.contentPath ??= `${path}.content`;
          target.parts.push(...parts);
          return;
        }
        flush();
        const role = message.role === "developer" ? "system" : message.role;
        messages.push({ role, content: typeof message.content === "string" ? message.content : parts });
        origins.push({ path, contentPath: `${path}.content` });
        return;
      }
      case "reasoning": {
        const reasoning = parseWire(responsesReasoningItemSchema, item, path);
        const summary = (reasoning.summary ?? []).map((part) => part.text).filter((text) => text !== "");
        const content = (reasoning.content ?? []).map((part) => part.text).filter((text) => text !== "");
        let text = (summary.length > 0 ? summary : content).join("\n\n");
        // A reasoning item replayed by id only (no summary, content or readable encrypted_content) stands
        // for the committed one of that id, like an item_reference.
        if (
          text === "" &&
          typeof raw.id === "string" &&
          options.history?.item(raw.id)?.type === "reasoning"
        ) {
          const stored = parseWire(responsesReasoningItemSchema, options.history.item(raw.id), path);
          text = (stored.content ?? [])
            .map((part) => part.text)
            .filter((t) => t !== "")
            .join("\n\n");
        }
        const target = assistant(path);
        if (text !== "") target.reasoning.push(text);
        return;
      }
      case "function_call": {
        const call = parseWire(responsesFunctionCallItemSchema, item, path);
        const target = assistant(path);
        target.toolCalls.push({
          id: call.call_id,
          type: "function",
          function: {
            name: call.name,
            arguments:
              options.emptyArgumentsAsObject && /^[ \t\n\r]*$/.test(call.arguments)
                ? "{}"
                : canonicalToolArguments(call.arguments, `${path}.arguments`),
          },
        });
        target.toolCallPaths.push(path);
        return;
      }
      case "function_call_output": {
        const output = parseWire(responsesFunctionCallOutputItemSchema, item, path);
        flush();
        messages.push({
          role: "tool",
          content:
            typeof output.output === "string"
              ? output.output
              : projectContent(output.output, `${path}.output`, true),
          tool_call_id: output.call_id,
        });
        origins.push({ path, contentPath: `${path}.output` });
        return;
      }
      case "compaction":
        flush();
        pushCompactionSummary(item, path, messages, origins);
        return;
      case undefined:
        throw new CanonicalizationError({
          path: `${path}.type`,
          reason: `is required (one of ${RESPONSES_ITEM_TYPES.map((t) => JSON.stringify(t)).join(", ")})`,
        });
      default:
        throw new CanonicalizationError({
          path: `${path}.type`,
          reason: `unsupported item type ${JSON.stringify(type) ?? typeName(type)}; expected one of ${RESPONSES_ITEM_TYPES.map((t) => JSON.stringify(t)).join(", ")}`,
        });
    }
  });
  flush();
}

/**
 * A `compaction` item of a window that `/responses/compact` returned: the summary this gateway wrote, as a
 * user message. @throws CanonicalizationError (`input[i].encrypted_content`) for one made elsewhere.
 */
function pushCompactionSummary(
  item: Record<string, unknown>,
  path: string,
  messages: ProjectedMessage[],
  origins: MessageOrigin[],
): void {
  const summary = decodeCompactionContent(item.encrypted_content, `${path}.encrypted_content`);
  messages.push({ role: "user", content: `${RESPONSES_COMPACTION_SUMMARY_PREFIX}\n${summary}` });
  origins.push({ path, contentPath: `${path}.encrypted_content` });
}

/** The stored output item an `item_reference` names. @throws CanonicalizationError (`input[i].id`). */
function resolveItem(
  raw: Record<string, unknown>,
  path: string,
  history: ConversationHistory | undefined,
): Record<string, unknown> {
  if (typeof raw.id !== "string" || raw.id === "") {
    throw new CanonicalizationError({ path: `${path}.id`, reason: "must be a non-empty string" });
  }
  if (history === undefined) {
    throw new CanonicalizationError({
      path: `${path}.type`,
      reason: `item references are not supported: ${FULL_HISTORY}`,
    });
  }
  const item = history.item(raw.id);
  if (item === undefined) {
    throw new CanonicalizationError({
      path: `${path}.id`,
      reason: `unknown item id ${JSON.stringify(raw.id)}: not an output item of a recent committed response of this session`,
    });
  }
  return item;
}

function projectContent(
  content: string | { type: string; text?: string; image_url?: string }[],
  path: string,
  imagesAllowed: boolean,
): ProjectedPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part, j): ProjectedPart => {
    if (part.type === "input_image") {
      if (!imagesAllowed) {
        throw new CanonicalizationError({
          path: `${path}[${j}].type`,
          reason: "input_image is only allowed in user messages and function_call_output",
        });
      }
      return { type: "image_url", image_url: { url: part.image_url ?? "" } };
    }
    return { type: "text", text: part.text ?? "" };
  });
}

function convertTools(raw: unknown[] | null | undefined, warnings: ProtocolWarning[]) {
  const chatTools = (raw ?? []).map((tool, i) => {
    const path = `tools[${i}]`;
    if (!isPlainObject(tool)) {
      throw new CanonicalizationError({ path, reason: `must be a tool object, got ${typeName(tool)}` });
    }
    if (tool.type !== "function") return { type: tool.type ?? null };
    const fn = parseWire(responsesFunctionToolSchema, tool, path);
    return {
      type: "function",
      function: { name: fn.name, description: fn.description, parameters: fn.parameters ?? undefined },
    };
  });
  try {
    return canonicalizeTools(chatTools, {
      onDropped: ({ path, type }) =>
        warnings.push({
          type: "dropped-tool",
          path,
          message: `${path} is dropped: only function tools are supported (type ${JSON.stringify(type)})`,
        }),
    });
  } catch (error) {
    if (!CanonicalizationError.isInstance(error)) throw error;
    throw new CanonicalizationError({
      path: error.path.replace(".function.", "."),
      reason: error.reason,
      cause: error,
    });
  }
}
