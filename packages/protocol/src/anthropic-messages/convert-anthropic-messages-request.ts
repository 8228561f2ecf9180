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
import type { ConversationHistory, StoredReply } from "../shared/conversation-history";
import { normalizeMessages, resolveHarnessNormalizers } from "../shared/harness-normalizers";
import { NOT_SUPPORTED, SAMPLING_FROM_ROLLOUT } from "../shared/ignored-fields";
import { parseWire } from "../shared/parse-wire";
import type { ConvertedRequest, ConvertOptions, ProtocolWarning } from "../shared/protocol";
import { readResponseFormat } from "../shared/read-response-format";
import { isPlainObject, typeName } from "../shared/type-name";
import {
  ANTHROPIC_MESSAGES_READ_FIELDS,
  anthropicAssistantBlockSchema,
  anthropicMessageSchema,
  anthropicMessagesRequestSchema,
  anthropicSystemMessageSchema,
  anthropicToolSchema,
  anthropicUserBlockSchema,
} from "./anthropic-messages-api";

/** Messages fields that are accepted and ignored, with the reason (documented in the README). */
export const ANTHROPIC_MESSAGES_IGNORED_FIELDS: Readonly<Record<string, string>> = {
  temperature: SAMPLING_FROM_ROLLOUT,
  top_p: SAMPLING_FROM_ROLLOUT,
  top_k: SAMPLING_FROM_ROLLOUT,
  metadata: NOT_SUPPORTED,
  tool_choice: NOT_SUPPORTED,
  service_tier: NOT_SUPPORTED,
  container: NOT_SUPPORTED,
  mcp_servers: NOT_SUPPORTED,
  context_management: NOT_SUPPORTED,
  output_config: NOT_SUPPORTED,
  output_format: NOT_SUPPORTED,
  betas: NOT_SUPPORTED,
};

/**
 * Projects an Anthropic Messages body to the canonical request (see
 * docs/contract.md#anthropic-messages):
 * - `system` (string or text blocks joined with `"\n\n"`) becomes a leading system message;
 * - user `text` and `image` (base64 → `data:<media_type>;base64,<data>`, or url) become a user message;
 *   each `tool_result` ends the pending user parts and becomes a tool message keeping `tool_use_id`;
 * - assistant `text` becomes content, `thinking` becomes `reasoning_content` (joined with `"\n\n"`, empty
 *   dropped), `tool_use` becomes a tool call keeping its id, with `input` as canonical JSON arguments;
 * - client tools (`input_schema`, `type` absent or `custom`); required `max_tokens`; `stop_sequences`;
 *   `thinking.type` → `{enable_thinking: type !== "disabled"}`;
 * - `{"role": "system"}` entries inside `messages` stay in place as system messages (normaliser
 *   `systemInMessages`); a `"tool"` or other role is a 400 naming `messages[i].role` and saying where
 *   tool results go;
 * - `thread: {type: "continue", previous_message_id}` continues a committed reply of this session
 *   (`options.history`): its conversation comes first, and its system text, tools and `thinking` setting
 *   are used when the request has none; an unknown id (or no history) is a 400 naming `thread.previous_message_id`;
 * - the harness normalisers: billing-header lines stripped from system text, the leading run of system
 *   messages merged.
 *
 * @param body - the parsed JSON body.
 * @param options - normalisers and history; `countTokens` makes `max_tokens` optional
 *   (`/v1/messages/count_tokens`).
 * @throws CanonicalizationError naming the field path (`messages[1].content[2].source.media_type`).
 */
export function convertAnthropicMessagesRequest(
  body: unknown,
  options: ConvertOptions & { countTokens?: boolean } = {},
): ConvertedRequest {
  if (!isPlainObject(body)) {
    throw new CanonicalizationError({ path: "body", reason: `must be a JSON object, got ${typeName(body)}` });
  }
  const normalizers = resolveHarnessNormalizers(options.normalizers);
  const wire = parseWire(
    anthropicMessagesRequestSchema,
    options.countTokens === true && body.max_tokens == null ? { ...body, max_tokens: 1 } : body,
    "",
  );
  const warnings: ProtocolWarning[] = contractChangeWarnings(
    body,
    collectIgnoredFields({
      body,
      read: ANTHROPIC_MESSAGES_READ_FIELDS,
      known: ANTHROPIC_MESSAGES_IGNORED_FIELDS,
    }),
  );
  const previous =
    wire.thread?.type === "continue"
      ? resolveThread(wire.thread.previous_message_id, options.history)
      : undefined;
  const messages: ProjectedMessage[] = [];
  const origins: MessageOrigin[] = [];
  const ownSystem =
    typeof wire.system === "string"
      ? wire.system
      : (wire.system ?? []).map((block) => block.text).join("\n\n");
  const system = ownSystem === "" && previous?.system !== undefined ? previous.system : ownSystem;
  if (system !== "") {
    messages.push({ role: "system", content: system });
    origins.push({ path: "system", contentPath: "system" });
  }
  for (const message of previous?.messages ?? []) {
    messages.push(message as ProjectedMessage);
    origins.push({ path: "thread.previous_message_id" });
  }
  if (wire.messages.length === 0) {
    throw new CanonicalizationError({ path: "messages", reason: "must contain at least one message" });
  }
  wire.messages.forEach((raw, i) => {
    const path = `messages[${i}]`;
    if (isPlainObject(raw) && raw.role !== "user" && raw.role !== "assistant") {
      projectOtherRole(raw, path, normalizers.systemInMessages, messages, origins);
      return;
    }
    if (isPlainObject(raw) && raw.tool_calls != null) {
      throw new CanonicalizationError({
        path: `${path}.tool_calls`,
        reason:
          'is not part of Anthropic Messages; an assistant tool call is a {"type": "tool_use", "id": …, "name": …, "input": {…}} block in `content`',
      });
    }
    const message = parseWire(anthropicMessageSchema, raw, path);
    if (message.role === "user") projectUser(message.content, path, messages, origins);
    else projectAssistant(message.content, path, messages, origins, warnings);
  });
  const stop = wire.stop_sequences ?? [];
  const canonical = canonicalizeProjectedMessages({ messages, origins, emptyPath: "messages" });
  const ownTools = convertTools(wire.tools, warnings);
  const tools = ownTools.length === 0 && previous !== undefined ? previous.tools : ownTools;
  const responseFormat =
    readResponseFormat(body.output_format, "output_format", body.tool_choice) ??
    readResponseFormat(
      isPlainObject(body.output_config) ? body.output_config.format : undefined,
      "output_config.format",
      body.tool_choice,
    );
  return {
    continuation: {
      messages: system !== "" ? canonical.slice(1) : canonical,
      ...(system !== "" ? { system } : {}),
    },
    ...(responseFormat !== undefined ? { responseFormat } : {}),
    request: {
      messages: normalizeMessages(canonical, normalizers),
      tools,
      chatTemplateKwargs:
        wire.thinking == null && previous?.chatTemplateKwargs !== undefined
          ? previous.chatTemplateKwargs
          : canonicalizeTemplateKwargs(
              wire.thinking != null ? { enable_thinking: wire.thinking.type !== "disabled" } : {},
            ),
      stream: wire.stream ?? false,
      maxTokens: wire.max_tokens,
      ...(stop.length > 0 ? { stop } : {}),
      ...(wire.model != null ? { model: wire.model } : {}),
    },
    warnings,
  };
}

function resolveThread(id: string, history: ConversationHistory | undefined): StoredReply {
  const path = "thread.previous_message_id";
  if (history === undefined) {
    throw new CanonicalizationError({
      path,
      reason:
        "is not supported: this server keeps no messages for the session; send the full conversation in `messages`",
    });
  }
  const previous = history.reply(id);
  if (previous === undefined) {
    throw new CanonicalizationError({
      path,
      reason: `unknown message id ${JSON.stringify(id)}: not a recent committed reply of this session`,
    });
  }
  return previous;
}

/** A `messages` entry whose role is neither `user` nor `assistant`. */
function projectOtherRole(
  raw: Record<string, unknown>,
  path: string,
  systemInMessages: boolean,
  messages: ProjectedMessage[],
  origins: MessageOrigin[],
): void {
  const role = raw.role;
  if (role === "system" && systemInMessages) {
    const entry = parseWire(anthropicSystemMessageSchema, raw, path);
    const content =
      typeof entry.content === "string"
        ? entry.content
        : entry.content.map((block) => block.text).join("\n\n");
    messages.push({ role: "system", content });
    origins.push({ path, contentPath: `${path}.content` });
    return;
  }
  const expected = systemInMessages ? '"user", "assistant" or "system"' : '"user" or "assistant"';
  const hint =
    role === "tool"
      ? '; an Anthropic tool result is a {"type": "tool_result", "tool_use_id": …, "content": …} block in a "user" message (the "tool" role is OpenAI Chat Completions)'
      : role === undefined
        ? ""
        : role === "system"
          ? "; put system text in the top-level `system` field"
          : "";
  throw new CanonicalizationError({
    path: `${path}.role`,
    reason:
      role === undefined
        ? `is required (${expected})`
        : `must be ${expected}, got ${JSON.stringify(role) ?? typeName(role)}${hint}`,
  });
}

function projectUser(
  content: string | unknown[],
  path: string,
  messages: ProjectedMessage[],
  origins: MessageOrigin[],
): void {
  if (typeof content === "string") {
    messages.push({ role: "user", content });
    origins.push({ path, contentPath: `${path}.content` });
    return;
  }
  let parts: ProjectedPart[] = [];
  let partsPath: string | undefined;
  const flush = () => {
    if (parts.length === 0) return;
    messages.push({ role: "user", content: parts });
    origins.push({ path, contentPath: partsPath });
    parts = [];
    partsPath = undefined;
  };
  content.forEach((raw, j) => {
    const blockPath = `${path}.content[${j}]`;
    const block = parseWire(anthropicUserBlockSchema, raw, blockPath);
    switch (block.type) {
      case "text":
        partsPath ??= blockPath;
        parts.push({ type: "text", text: block.text });
        return;
      case "image":
        partsPath ??= blockPath;
        parts.push(projectImage(block, blockPath));
        return;
      case "tool_result": {
        flush();
        const result = block.content;
        messages.push({
          role: "tool",
          content:
            result == null || typeof result === "string"
              ? (result ?? null)
              : result.map((part, k) =>
                  part.type === "text"
                    ? { type: "text", text: part.text }
                    : projectImage(part, `${blockPath}.content[${k}]`),
                ),
          tool_call_id: block.tool_use_id,
        });
        origins.push({ path: blockPath, contentPath: `${blockPath}.content` });
        return;
      }
    }
  });
  flush();
  if (content.length === 0) {
    // An empty block list is an empty user message: let canonicalisation reject it with this path.
    messages.push({ role: "user", content: [] });
    origins.push({ path, contentPath: `${path}.content` });
  }
}

function projectImage(
  block: { source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string } },
  path: string,
): ProjectedPart {
  const { source } = block;
  if (source.type === "url") return { type: "image_url", image_url: { url: source.url } };
  if (!source.media_type.startsWith("image/")) {
    throw new CanonicalizationError({
      path: `${path}.source.media_type`,
      reason: `must be an image media type (image/*), got ${JSON.stringify(source.media_type)}`,
    });
  }
  return { type: "image_url", image_url: { url: `data:${source.media_type};base64,${source.data}` } };
}

function projectAssistant(
  content: string | unknown[],
  path: string,
  messages: ProjectedMessage[],
  origins: MessageOrigin[],
  warnings: ProtocolWarning[],
): void {
  if (typeof content === "string") {
    messages.push({ role: "assistant", content });
    origins.push({ path, contentPath: `${path}.content` });
    return;
  }
  const parts: ProjectedPart[] = [];
  const reasoning: string[] = [];
  const toolCalls: NonNullable<ProjectedMessage["tool_calls"]> = [];
  const toolCallPaths: string[] = [];
  content.forEach((raw, j) => {
    const blockPath = `${path}.content[${j}]`;
    const block = parseWire(anthropicAssistantBlockSchema, raw, blockPath);
    switch (block.type) {
      case "text":
        parts.push({ type: "text", text: block.text });
        return;
      case "thinking":
        if (block.thinking !== "") reasoning.push(block.thinking);
        return;
      case "redacted_thinking":
        warnings.push({
          type: "dropped-content",
          path: blockPath,
          message: `${blockPath} is dropped: redacted thinking carries no text to render`,
        });
        return;
      case "tool_use":
        toolCalls.push({
          id: block.id,
          type: "function",
          function: {
            name: block.name,
            arguments: canonicalToolArguments(block.input, `${blockPath}.input`),
          },
        });
        toolCallPaths.push(blockPath);
        return;
    }
  });
  messages.push({
    role: "assistant",
    content: parts.length > 0 ? parts : null,
    ...(reasoning.length > 0 ? { reasoning_content: reasoning.join("\n\n") } : {}),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  });
  origins.push({ path, contentPath: `${path}.content`, toolCallPaths });
}

const TOOL_FIELD_PATHS: Readonly<Record<string, string>> = {
  ".function.name": ".name",
  ".function.description": ".description",
  ".function.parameters": ".input_schema",
  ".function": "",
};

function convertTools(raw: unknown[] | null | undefined, warnings: ProtocolWarning[]) {
  const chatTools = (raw ?? []).map((tool, i) => {
    const path = `tools[${i}]`;
    if (!isPlainObject(tool)) {
      throw new CanonicalizationError({ path, reason: `must be a tool object, got ${typeName(tool)}` });
    }
    if (tool.type != null && tool.type !== "custom") return { type: tool.type };
    const parsed = parseWire(anthropicToolSchema, tool, path);
    return {
      type: "function",
      function: { name: parsed.name, description: parsed.description, parameters: parsed.input_schema },
    };
  });
  try {
    return canonicalizeTools(chatTools, {
      onDropped: ({ path, type }) =>
        warnings.push({
          type: "dropped-tool",
          path,
          message: `${path} is dropped: only client tools (type absent or "custom") are supported (type ${JSON.stringify(type)})`,
        }),
    });
  } catch (error) {
    if (!CanonicalizationError.isInstance(error)) throw error;
    const path = error.path.replace(
      /\.function(\.name|\.description|\.parameters)?$/,
      (m) => TOOL_FIELD_PATHS[m] ?? m,
    );
    throw new CanonicalizationError({ path, reason: error.reason, cause: error });
  }
}
