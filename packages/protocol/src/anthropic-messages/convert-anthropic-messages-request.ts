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
  ANTHROPIC_MESSAGES_READ_FIELDS,
  anthropicAssistantBlockSchema,
  anthropicMessageSchema,
  anthropicMessagesRequestSchema,
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
 *   `thinking.type` → `{enable_thinking: type !== "disabled"}`.
 *
 * @param body - the parsed JSON body.
 * @throws CanonicalizationError naming the field path (`messages[1].content[2].source.media_type`).
 */
export function convertAnthropicMessagesRequest(body: unknown): ConvertedRequest {
  if (!isPlainObject(body)) {
    throw new CanonicalizationError({ path: "body", reason: `must be a JSON object, got ${typeName(body)}` });
  }
  const wire = parseWire(anthropicMessagesRequestSchema, body, "");
  const warnings: ProtocolWarning[] = collectIgnoredFields({
    body,
    read: ANTHROPIC_MESSAGES_READ_FIELDS,
    known: ANTHROPIC_MESSAGES_IGNORED_FIELDS,
  });
  const messages: ProjectedMessage[] = [];
  const origins: MessageOrigin[] = [];
  const system =
    typeof wire.system === "string"
      ? wire.system
      : (wire.system ?? []).map((block) => block.text).join("\n\n");
  if (system !== "") {
    messages.push({ role: "system", content: system });
    origins.push({ path: "system", contentPath: "system" });
  }
  if (wire.messages.length === 0) {
    throw new CanonicalizationError({ path: "messages", reason: "must contain at least one message" });
  }
  wire.messages.forEach((raw, i) => {
    const path = `messages[${i}]`;
    const message = parseWire(anthropicMessageSchema, raw, path);
    if (message.role === "user") projectUser(message.content, path, messages, origins);
    else projectAssistant(message.content, path, messages, origins, warnings);
  });
  const stop = wire.stop_sequences ?? [];
  return {
    request: {
      messages: canonicalizeProjectedMessages({ messages, origins, emptyPath: "messages" }),
      tools: convertTools(wire.tools, warnings),
      chatTemplateKwargs: canonicalizeTemplateKwargs(
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
