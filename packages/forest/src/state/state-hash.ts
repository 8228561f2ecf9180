import { createHash } from "node:crypto";
import type { ChatMessage, ChatTemplateKwargs, ConversationState, FunctionTool } from "@relax/chat";
import { stableStringify } from "@relax/chat/internal";
import { updateWithMessage } from "./serialize-message";

/** Domain tag of version 1 of the chained state hash; part of every seed, so a format change never collides. */
const SEED_TAG = "relax.forest.state.v1";

/**
 * State hash of the technical root: the empty state every subtree hangs under. It is not the seed of any
 * subtree, so no request state can equal it.
 */
export const ROOT_STATE_HASH: string = createHash("sha256").update("relax.forest.root.v1").digest("hex");

/**
 * The seed of a subtree's hash chain: `h0 = sha256("relax.forest.state.v1\n" + stableStringify({tools,
 * chat_template_kwargs}))`, 64 lowercase hex digits. States with different tools or kwargs therefore never
 * share a hash, and start different subtrees (see docs/contract.md#sessionforest).
 *
 * @param tools - canonical tools (`canonicalizeTools`); `parameters` key order does not matter.
 * @param chatTemplateKwargs - canonical kwargs (`canonicalizeTemplateKwargs`).
 * @throws CanonicalizationError (from `stableStringify`) for values that are not JSON.
 */
export function seedStateHash(
  tools: readonly FunctionTool[],
  chatTemplateKwargs: ChatTemplateKwargs,
): string {
  return createHash("sha256")
    .update(`${SEED_TAG}\n`)
    .update(stableStringify({ chat_template_kwargs: chatTemplateKwargs, tools }))
    .digest("hex");
}

/**
 * One link of the chain: `h_i = sha256(h_{i-1} + "\n" + stableStringify(message_i))`. Because `h_{i-1}` has
 * a fixed width, the encoding is unambiguous; hashing an n-message state costs one pass over its messages,
 * and every prefix hash falls out on the way, which is what makes longest-prefix matching O(n).
 *
 * Unlike the Python Relax (one sha256 over the whole `{messages, tools, template_kwargs}` JSON), hashes are
 * chained, so the two systems' hashes differ; both are insensitive to JSON key order (see
 * docs/contract.md#deviations).
 *
 * @param previous - the hash of the state without `message` (a seed or a node's state hash).
 * @param message - a canonical message.
 */
export function chainStateHash(previous: string, message: ChatMessage): string {
  const hash = createHash("sha256").update(previous).update("\n");
  updateWithMessage(hash, message);
  return hash.digest("hex");
}

/**
 * The state hash of a whole canonical state, as the forest computes it for its nodes. An empty message
 * list gives the seed, which is never a committed node.
 *
 * @example
 * ```ts
 * const h = hashConversationState({ messages, tools: [], chatTemplateKwargs: {} });
 * forest.node(h); // the committed node of that state, if any
 * ```
 */
export function hashConversationState(state: ConversationState): string {
  let hash = seedStateHash(state.tools, state.chatTemplateKwargs);
  for (const message of state.messages) hash = chainStateHash(hash, message);
  return hash;
}
