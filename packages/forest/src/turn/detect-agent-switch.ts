import type { ChatMessage } from "@relax/chat";
import { serializeMessage } from "../state/serialize-message";

/** What tells one agent from another at the start of a subtree: its first messages and its seed. */
export interface SubtreeStart {
  /** The subtree's first messages (its first observation's, or the new request's). */
  messages: readonly ChatMessage[];
  /** The subtree seed: the hash of its tools and chat-template kwargs (`seedStateHash`). */
  seed: string;
}

/** The leading run of system messages (canonicalisation maps `developer` to `system`). */
export function leadingSystemMessages(messages: readonly ChatMessage[]): readonly ChatMessage[] {
  const end = messages.findIndex((message) => message.role !== "system");
  return end < 0 ? messages : messages.slice(0, end);
}

/**
 * True when a new subtree belongs to another agent than the subtree the session was in: its tools or
 * chat-template kwargs (the seed) differ, or its leading system messages do, compared in their hashed form
 * (see docs/contract.md#agent-contexts). An `@openai/agents` handoff changes the instructions and the tools; a
 * LangChain `withStructuredOutput` call after a `bindTools` loop drops the tools. A request that only
 * rewrote the history under the same system prompt, tools and kwargs is not a switch.
 */
export function detectAgentSwitch({
  previous,
  next,
}: {
  previous: SubtreeStart;
  next: SubtreeStart;
}): boolean {
  if (previous.seed !== next.seed) return true;
  const before = leadingSystemMessages(previous.messages);
  const after = leadingSystemMessages(next.messages);
  return (
    before.length !== after.length ||
    before.some((message, i) => serializeMessage(message) !== serializeMessage(after[i]!))
  );
}
