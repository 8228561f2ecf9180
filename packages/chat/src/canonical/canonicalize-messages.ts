import type { AssistantMessage, ChatMessage, MessageContent, ToolCall } from "../messages/chat-message";
import { canonicalToolArguments } from "./canonical-tool-arguments";
import { CanonicalizationError } from "./canonicalization-error";
import { canonicalizeContent } from "./canonicalize-content";
import { isPlainObject, typeName } from "./json-guards";

/**
 * The stable, non-empty content given to a tool message whose result was `null`, absent or `""`
 * (see docs/contract.md#chat-completions). Chat templates render an empty tool
 * response inconsistently, and an empty observation could not be told apart from a missing one.
 */
export const EMPTY_TOOL_RESULT = "(no output)";

const ROLES = new Set(["system", "user", "assistant", "tool", "developer"]);

/** Options of {@link canonicalizeMessages}. */
export interface CanonicalizeMessagesOptions {
  /** Path prefix for error messages. @default "messages" */
  path?: string;
  /** Whether an empty list is accepted. @default false */
  allowEmpty?: boolean;
  /**
   * Read an echoed tool call whose `function.arguments` is `""` or only whitespace as `{}` (several
   * harnesses echo no-parameter calls that way) instead of rejecting it. @default false
   */
  emptyArgumentsAsObject?: boolean;
}

/**
 * Projects Chat-shaped messages (the OpenAI wire form, or what a protocol converter produced) to
 * canonical {@link ChatMessage}s. Rules (see docs/contract.md#chat-completions):
 * - roles `system | user | assistant | tool`; `developer` becomes `system`; other keys (`name`,
 *   `refusal`, …) are dropped; key order is `role, content, reasoning_content, tool_calls, tool_call_id`;
 * - system and user content must be non-empty; text-only part lists collapse to a string (system parts
 *   joined with `"\n\n"`, others with `""`);
 * - assistant `content: null` becomes `""`; empty `reasoning_content` and empty `tool_calls: []` are
 *   removed; each tool call needs a non-empty `id` and `function.name`, `type` absent or `"function"`,
 *   and `function.arguments` (string or object) becomes canonical JSON ({@link canonicalToolArguments});
 * - tool content `null`/absent/`""` becomes {@link EMPTY_TOOL_RESULT}; `tool_call_id` is kept;
 * - `tool_calls` on a non-assistant message is an error;
 * - with `emptyArgumentsAsObject`, blank `function.arguments` (`""`, whitespace) becomes `{}`.
 *
 * Unlike the Python Relax, system messages are not hoisted to the front: a system message in the middle
 * of a conversation stays where it is (templates such as Qwen3 render it there), so appending one
 * extends the committed prefix instead of resetting the session (see docs/contract.md#deviations).
 *
 * Pure: the input is never mutated.
 *
 * @throws CanonicalizationError naming the field path, e.g. `messages[3].tool_calls[0].id`.
 */
export function canonicalizeMessages(raw: unknown, options: CanonicalizeMessagesOptions = {}): ChatMessage[] {
  const { path = "messages", allowEmpty = false, emptyArgumentsAsObject = false } = options;
  if (!Array.isArray(raw)) {
    throw new CanonicalizationError({ path, reason: `must be a list of messages, got ${typeName(raw)}` });
  }
  if (raw.length === 0 && !allowEmpty) {
    throw new CanonicalizationError({ path, reason: "must contain at least one message" });
  }
  return raw.map((message, i) => canonicalizeMessage(message, `${path}[${i}]`, { emptyArgumentsAsObject }));
}

/**
 * Canonicalises one message; see {@link canonicalizeMessages}.
 * @throws CanonicalizationError naming the field path.
 */
export function canonicalizeMessage(
  raw: unknown,
  path: string,
  options: Pick<CanonicalizeMessagesOptions, "emptyArgumentsAsObject"> = {},
): ChatMessage {
  if (!isPlainObject(raw)) {
    throw new CanonicalizationError({ path, reason: `must be a message object, got ${typeName(raw)}` });
  }
  const role = raw.role;
  if (typeof role !== "string" || !ROLES.has(role)) {
    throw new CanonicalizationError({
      path: `${path}.role`,
      reason: `unsupported role ${JSON.stringify(role ?? null)}; expected "system", "user", "assistant", "tool" or "developer"`,
    });
  }
  if (role !== "assistant" && raw.tool_calls !== undefined && raw.tool_calls !== null) {
    throw new CanonicalizationError({
      path: `${path}.tool_calls`,
      reason: `only assistant messages may carry tool calls (role is "${role}")`,
    });
  }
  switch (role) {
    case "system":
    case "developer":
      return { role: "system", content: requireContent(raw.content, `${path}.content`, "\n\n") };
    case "user":
      return { role: "user", content: requireContent(raw.content, `${path}.content`, "") };
    case "tool": {
      const content = canonicalizeContent(raw.content, `${path}.content`, "");
      const toolCallId = raw.tool_call_id;
      if (toolCallId !== undefined && toolCallId !== null && typeof toolCallId !== "string") {
        throw new CanonicalizationError({ path: `${path}.tool_call_id`, reason: "must be a string" });
      }
      return {
        role: "tool",
        content: isEmpty(content) ? EMPTY_TOOL_RESULT : (content as MessageContent),
        ...(typeof toolCallId === "string" && toolCallId.length > 0 ? { tool_call_id: toolCallId } : {}),
      };
    }
    default:
      return canonicalizeAssistant(raw, path, options.emptyArgumentsAsObject === true);
  }
}

function canonicalizeAssistant(
  raw: Record<string, unknown>,
  path: string,
  emptyArgumentsAsObject: boolean,
): AssistantMessage {
  const content = canonicalizeContent(raw.content, `${path}.content`, "") ?? "";
  const reasoning = raw.reasoning_content;
  if (reasoning !== undefined && reasoning !== null && typeof reasoning !== "string") {
    throw new CanonicalizationError({
      path: `${path}.reasoning_content`,
      reason: "must be a string or null",
    });
  }
  const message: AssistantMessage = { role: "assistant", content };
  if (typeof reasoning === "string" && reasoning.length > 0) message.reasoning_content = reasoning;
  const toolCalls = raw.tool_calls;
  if (toolCalls !== undefined && toolCalls !== null) {
    if (!Array.isArray(toolCalls)) {
      throw new CanonicalizationError({
        path: `${path}.tool_calls`,
        reason: `must be a list, got ${typeName(toolCalls)}`,
      });
    }
    if (toolCalls.length > 0) {
      message.tool_calls = toolCalls.map((call, j) =>
        canonicalizeToolCall(call, `${path}.tool_calls[${j}]`, emptyArgumentsAsObject),
      );
    }
  }
  return message;
}

function canonicalizeToolCall(raw: unknown, path: string, emptyArgumentsAsObject: boolean): ToolCall {
  if (!isPlainObject(raw)) {
    throw new CanonicalizationError({ path, reason: `must be a tool call object, got ${typeName(raw)}` });
  }
  if (typeof raw.id !== "string" || raw.id.length === 0) {
    throw new CanonicalizationError({ path: `${path}.id`, reason: "must be a non-empty string" });
  }
  if (raw.type !== undefined && raw.type !== "function") {
    throw new CanonicalizationError({
      path: `${path}.type`,
      reason: `unsupported tool call type ${JSON.stringify(raw.type)}; expected "function"`,
    });
  }
  const fn = raw.function;
  if (!isPlainObject(fn)) {
    throw new CanonicalizationError({
      path: `${path}.function`,
      reason: `must be an object, got ${typeName(fn)}`,
    });
  }
  if (typeof fn.name !== "string" || fn.name.length === 0) {
    throw new CanonicalizationError({ path: `${path}.function.name`, reason: "must be a non-empty string" });
  }
  if (fn.arguments === undefined) {
    throw new CanonicalizationError({ path: `${path}.function.arguments`, reason: "is required" });
  }
  return {
    id: raw.id,
    type: "function",
    function: {
      name: fn.name,
      arguments:
        emptyArgumentsAsObject && isBlankString(fn.arguments)
          ? "{}"
          : canonicalToolArguments(fn.arguments, `${path}.function.arguments`),
    },
  };
}

/** `""` or only JSON whitespace: an echoed no-parameter call. */
function isBlankString(value: unknown): boolean {
  return typeof value === "string" && /^[ \t\n\r]*$/.test(value);
}

function requireContent(raw: unknown, path: string, separator: string): MessageContent {
  const content = canonicalizeContent(raw, path, separator);
  if (isEmpty(content)) {
    throw new CanonicalizationError({ path, reason: "must be non-empty" });
  }
  return content as MessageContent;
}

function isEmpty(content: MessageContent | null): boolean {
  return content === null || content.length === 0;
}
