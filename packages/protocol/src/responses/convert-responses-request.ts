import { CanonicalizationError, canonicalizeTemplateKwargs, canonicalizeTools } from "@relax/chat";
import { canonicalToolArguments } from "@relax/chat/internal";
import {
  canonicalizeProjectedMessages,
  type MessageOrigin,
  type ProjectedMessage,
  type ProjectedPart,
} from "../shared/canonicalize-projected-messages";
import { collectIgnoredFields } from "../shared/collect-ignored-fields";
import { NOT_SUPPORTED, SAMPLING_FROM_ROLLOUT } from "../shared/ignored-fields";
import { parseWire } from "../shared/parse-wire";
import type { ConvertedRequest, ProtocolWarning } from "../shared/protocol";
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
 * @param body - the parsed JSON body.
 * @throws CanonicalizationError naming the field path (`input[0].call_id`); `previous_response_id` and
 *   `conversation` are rejected because the full history is required.
 */
export function convertResponsesRequest(body: unknown): ConvertedRequest {
  if (!isPlainObject(body)) {
    throw new CanonicalizationError({ path: "body", reason: `must be a JSON object, got ${typeName(body)}` });
  }
  for (const key of ["previous_response_id", "conversation"] as const) {
    if (body[key] != null) {
      throw new CanonicalizationError({ path: key, reason: `is not supported: ${FULL_HISTORY}` });
    }
  }
  const wire = parseWire(responsesRequestSchema, body, "");
  const warnings: ProtocolWarning[] = collectIgnoredFields({
    body,
    read: RESPONSES_READ_FIELDS,
    known: RESPONSES_IGNORED_FIELDS,
  });
  const messages: ProjectedMessage[] = [];
  const origins: MessageOrigin[] = [];
  if (wire.instructions != null && wire.instructions !== "") {
    messages.push({ role: "system", content: wire.instructions });
    origins.push({ path: "instructions", contentPath: "instructions" });
  }
  if (typeof wire.input === "string") {
    messages.push({ role: "user", content: wire.input });
    origins.push({ path: "input", contentPath: "input" });
  } else {
    if (wire.input.length === 0) {
      throw new CanonicalizationError({ path: "input", reason: "must contain at least one item" });
    }
    projectItems(wire.input, messages, origins);
  }
  const effort = wire.reasoning?.effort;
  return {
    request: {
      messages: canonicalizeProjectedMessages({ messages, origins, emptyPath: "input" }),
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

function projectItems(items: unknown[], messages: ProjectedMessage[], origins: MessageOrigin[]): void {
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
  items.forEach((item, i) => {
    const path = `input[${i}]`;
    if (!isPlainObject(item)) {
      throw new CanonicalizationError({ path, reason: `must be an item object, got ${typeName(item)}` });
    }
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
        const text = (summary.length > 0 ? summary : content).join("\n\n");
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
            arguments: canonicalToolArguments(call.arguments, `${path}.arguments`),
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
      case "item_reference":
        throw new CanonicalizationError({
          path: `${path}.type`,
          reason: `item references are not supported: ${FULL_HISTORY}`,
        });
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
