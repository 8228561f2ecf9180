import type { AssistantMessage, ChatMessage, MessageContent } from "@relax/chat";
import { stableStringify } from "@relax/chat/internal";
import { compareText } from "./compare-text";
import type { HistoryEdit } from "./history-edit";

type Edits = HistoryEdit[] | null;

/** Text of a content value when it holds no media (`null`/absent give `""`); `undefined` when it has media. */
function contentText(content: MessageContent | null | undefined): string | undefined {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  let text = "";
  for (const part of content) {
    if (part.type !== "text") return undefined;
    text += part.text;
  }
  return text;
}

function isEmptyForm(value: unknown): boolean {
  return (
    value === null || value === undefined || value === "" || (Array.isArray(value) && value.length === 0)
  );
}

const THINK_INLINE = /^\s*<think>([\s\S]*?)<\/think>([\s\S]*)$/;

function compareJson(committed: unknown, echoed: unknown, path: string, pattern: RegExp): Edits {
  if (typeof committed === "string" && typeof echoed === "string") {
    return compareText(committed, echoed, path, pattern);
  }
  if (Array.isArray(committed) && Array.isArray(echoed)) {
    if (committed.length !== echoed.length) return null;
    const edits: HistoryEdit[] = [];
    for (let i = 0; i < committed.length; i++) {
      const found = compareJson(committed[i], echoed[i], `${path}[${i}]`, pattern);
      if (found === null) return null;
      edits.push(...found);
    }
    return edits;
  }
  if (
    committed !== null &&
    echoed !== null &&
    typeof committed === "object" &&
    typeof echoed === "object" &&
    !Array.isArray(committed) &&
    !Array.isArray(echoed)
  ) {
    const a = committed as Record<string, unknown>;
    const b = echoed as Record<string, unknown>;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length || !keys.every((key) => Object.hasOwn(b, key))) return null;
    const edits: HistoryEdit[] = [];
    for (const key of keys) {
      const found = compareJson(a[key], b[key], `${path}.${key}`, pattern);
      if (found === null) return null;
      edits.push(...found);
    }
    return edits;
  }
  return committed === echoed ? [] : null;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function compareArguments(committed: string, echoed: string, path: string, pattern: RegExp): Edits {
  if (committed === echoed) return [];
  const a = parseJson(committed);
  const b = parseJson(echoed);
  if (!a.ok || !b.ok) return compareText(committed, echoed, path, pattern);
  if (stableStringify(a.value) === stableStringify(b.value)) {
    return [{ kind: "tool_arguments_reserialized", path }];
  }
  const inner = compareJson(a.value, b.value, path, pattern);
  if (inner === null) return null;
  // The value differs only inside strings; say so, and that the text was re-serialised if it was.
  const reserialized = stableStringify(b.value) !== echoed;
  return reserialized ? [{ kind: "tool_arguments_reserialized", path }, ...inner] : inner;
}

function compareToolCalls(
  committed: AssistantMessage,
  echoed: AssistantMessage,
  path: string,
  pattern: RegExp,
): Edits {
  const a = committed.tool_calls ?? [];
  const b = echoed.tool_calls ?? [];
  if (a.length !== b.length) return null;
  const edits: HistoryEdit[] = [];
  if (a.length === 0 && (committed.tool_calls === undefined) !== (echoed.tool_calls === undefined)) {
    edits.push({ kind: "empty_content_replaced", path: `${path}.tool_calls` });
  }
  for (let i = 0; i < a.length; i++) {
    const callA = a[i]!;
    const callB = b[i]!;
    const callPath = `${path}.tool_calls[${i}]`;
    if (callA.function.name !== callB.function.name) return null;
    if (callA.id !== callB.id) edits.push({ kind: "tool_call_id_changed", path: `${callPath}.id` });
    const found = compareArguments(
      callA.function.arguments,
      callB.function.arguments,
      `${callPath}.function.arguments`,
      pattern,
    );
    if (found === null) return null;
    edits.push(...found);
  }
  return edits;
}

/**
 * Decides whether `echoed` (a message of a new request) is the committed response `committed` after only
 * benign agent edits. Returns `[]` for no visible difference, the list of edits (see
 * {@link HistoryEditKind}) when every difference is benign, or `null` when the message was really changed.
 *
 * Content, reasoning and tool-call argument strings are compared with whitespace and redaction tolerance;
 * arguments are compared as JSON values; tool-call names and count must be equal; media content must be
 * identical.
 *
 * @param path - field path of `echoed` in the request, e.g. `messages[3]`.
 * @param redaction - pattern of redaction markers (`redactionPattern`).
 */
export function compareAssistantEcho(options: {
  committed: AssistantMessage;
  echoed: ChatMessage;
  path: string;
  redaction: RegExp;
}): HistoryEdit[] | null {
  const { committed, echoed, path, redaction } = options;
  if (echoed.role !== "assistant") return null;
  const edits: HistoryEdit[] = [];
  const committedText = contentText(committed.content);
  const echoedText = contentText(echoed.content);
  const committedReasoning = committed.reasoning_content ?? "";
  const echoedReasoning = echoed.reasoning_content ?? "";
  let reasoningHandled = false;

  if (committedText === undefined || echoedText === undefined) {
    if (stableStringify(committed.content) !== stableStringify(echoed.content)) return null;
  } else if (committedText === "" && echoedText === "") {
    if (committed.content !== echoed.content) {
      edits.push({ kind: "empty_content_replaced", path: `${path}.content` });
    }
  } else {
    const inline = committedReasoning !== "" && echoedReasoning === "" ? THINK_INLINE.exec(echoedText) : null;
    if (inline) {
      const reasoning = compareText(committedReasoning, inline[1]!, `${path}.content`, redaction);
      const rest = compareText(committedText, inline[2]!, `${path}.content`, redaction);
      if (reasoning === null || rest === null) return null;
      edits.push({ kind: "reasoning_inlined", path: `${path}.content` }, ...reasoning, ...rest);
      reasoningHandled = true;
    } else {
      const found = compareText(committedText, echoedText, `${path}.content`, redaction);
      if (found === null) return null;
      edits.push(...found);
    }
  }

  if (!reasoningHandled) {
    const reasoningPath = `${path}.reasoning_content`;
    if (committedReasoning !== "" && echoedReasoning === "") {
      edits.push({ kind: "reasoning_dropped", path: reasoningPath });
    } else if (committedReasoning === "" && echoedReasoning !== "") {
      return null;
    } else if (committedReasoning === "" && committed.reasoning_content !== echoed.reasoning_content) {
      if (!isEmptyForm(echoed.reasoning_content) || !isEmptyForm(committed.reasoning_content)) return null;
      edits.push({ kind: "empty_content_replaced", path: reasoningPath });
    } else {
      const found = compareText(committedReasoning, echoedReasoning, reasoningPath, redaction);
      if (found === null) return null;
      edits.push(...found);
    }
  }

  const calls = compareToolCalls(committed, echoed, path, redaction);
  if (calls === null) return null;
  edits.push(...calls);
  return edits;
}
