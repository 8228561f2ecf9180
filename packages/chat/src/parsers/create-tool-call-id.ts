import { createHash } from "node:crypto";
import { stableStringify } from "../canonical/stable-stringify";

/**
 * A deterministic tool-call id: `"call_"` + the first 24 hex digits of
 * `sha256(stableStringify({ arguments, call_index, name, seed }))` (keys sorted, compact JSON, UTF-8).
 * The same seed (the caller passes the parent state hash and/or the generated token ids), position,
 * name and canonical arguments always give the same id, so a replayed history matches the stored one.
 * The Python Relax hashes `{call_index, parent_state_hash, token_ids}` instead; here the call's content
 * is folded in (see docs/contract.md#replies, docs/contract.md#deviations).
 *
 * @param callIndex - position of the call in the message's `tool_calls` (0-based).
 * @param seed - the per-turn seed, e.g. the parent state hash.
 * @param arguments - the canonical arguments JSON text.
 */
export function createToolCallId({
  callIndex,
  seed,
  name,
  arguments: args,
}: {
  callIndex: number;
  seed: string;
  name: string;
  arguments: string;
}): string {
  const payload = stableStringify({ arguments: args, call_index: callIndex, name, seed });
  return `call_${createHash("sha256").update(payload, "utf8").digest("hex").slice(0, 24)}`;
}
