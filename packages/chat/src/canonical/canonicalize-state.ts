import type { ConversationState } from "../messages/function-tool";
import { canonicalizeMessages } from "./canonicalize-messages";
import { canonicalizeTemplateKwargs } from "./canonicalize-template-kwargs";
import { canonicalizeTools } from "./canonicalize-tools";

/**
 * Canonicalises a Chat-shaped `{messages, tools, chat_template_kwargs}` triple — an explicit export
 * record, a dataset prompt — into a {@link ConversationState}. Configured default kwargs go under the
 * record's own (`{...defaultTemplateKwargs, ...chat_template_kwargs}`), as `--apply-chat-template-kwargs`
 * is merged for requests (see docs/contract.md#sessionforest).
 *
 * @throws CanonicalizationError naming the field path.
 */
export function canonicalizeState(input: {
  messages: unknown;
  tools?: unknown;
  chat_template_kwargs?: unknown;
  defaultTemplateKwargs?: Record<string, unknown>;
}): ConversationState {
  const kwargs = canonicalizeTemplateKwargs(input.chat_template_kwargs);
  return {
    messages: canonicalizeMessages(input.messages),
    tools: canonicalizeTools(input.tools),
    chatTemplateKwargs: canonicalizeTemplateKwargs({ ...input.defaultTemplateKwargs, ...kwargs }),
  };
}
