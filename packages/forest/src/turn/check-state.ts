import type { ChatMessage, ConversationState, FunctionTool } from "@relax/chat";
import {
  chatMessageSchema,
  chatTemplateKwargsSchema,
  formatFieldPath,
  functionToolSchema,
} from "@relax/chat";
import { ForestInputError } from "../errors/forest-input-error";

/** Validates the messages a new observation will store (the unmatched suffix) against the canonical schema. */
export function checkNewMessages(messages: readonly ChatMessage[], from: number): void {
  for (let i = from; i < messages.length; i++) {
    const parsed = chatMessageSchema.safeParse(messages[i]);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ForestInputError({
        path: formatFieldPath(issue.path, `state.messages[${i}]`),
        reason: issue.message,
      });
    }
  }
}

/** Validates the tools and kwargs a new subtree will store. */
export function checkSubtreeOptions(tools: readonly FunctionTool[], chatTemplateKwargs: unknown): void {
  tools.forEach((tool, i) => {
    const parsed = functionToolSchema.safeParse(tool);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ForestInputError({
        path: formatFieldPath(issue.path, `state.tools[${i}]`),
        reason: issue.message,
      });
    }
  });
  const parsed = chatTemplateKwargsSchema.safeParse(chatTemplateKwargs);
  if (!parsed.success) {
    throw new ForestInputError({ path: "state.chatTemplateKwargs", reason: parsed.error.issues[0]!.message });
  }
}

/** Checks the outer shape of a state (messages non-empty, tools a list, kwargs an object). */
export function checkState(state: ConversationState): ConversationState {
  if (state === null || typeof state !== "object") {
    throw new ForestInputError({ path: "state", reason: "must be a conversation state object" });
  }
  const { messages, tools, chatTemplateKwargs } = state;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new ForestInputError({
      path: "state.messages",
      reason: "must be a non-empty list of canonical messages",
    });
  }
  if (!Array.isArray(tools)) {
    throw new ForestInputError({ path: "state.tools", reason: "must be a list of canonical tools" });
  }
  if (
    chatTemplateKwargs === null ||
    typeof chatTemplateKwargs !== "object" ||
    Array.isArray(chatTemplateKwargs)
  ) {
    throw new ForestInputError({ path: "state.chatTemplateKwargs", reason: "must be an object" });
  }
  return { messages, tools, chatTemplateKwargs };
}
