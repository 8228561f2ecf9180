import { CanonicalizationError } from "@relax/chat";
import { typeName } from "../shared/type-name";

/** The line before the summary when a `compaction` item is replayed as a user message. */
export const RESPONSES_COMPACTION_SUMMARY_PREFIX = "Summary of the conversation so far (context compaction):";

const CONTENT_PREFIX = "relax-compaction-v1:";

/**
 * `encrypted_content` of a gateway-made `compaction` item: a versioned prefix and the summary as base64 of
 * its UTF-8 bytes. It is opaque to the client (as OpenAI's is) but not encrypted: the gateway reads it back
 * when the item is replayed, so the model sees the summary and the trained tokens stay exact.
 */
export function encodeCompactionContent(summary: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(summary)) binary += String.fromCharCode(byte);
  return CONTENT_PREFIX + btoa(binary);
}

/**
 * The summary inside a `compaction` item's `encrypted_content` written by {@link encodeCompactionContent}.
 *
 * @throws CanonicalizationError naming `path` for content this gateway did not write (OpenAI's own
 *   encrypted compactions cannot be read outside OpenAI).
 */
export function decodeCompactionContent(value: unknown, path: string): string {
  if (typeof value !== "string" || !value.startsWith(CONTENT_PREFIX)) {
    throw new CanonicalizationError({
      path,
      reason: `must be the encrypted_content of a compaction item this gateway returned (${typeof value === "string" ? "unknown format" : typeName(value)}); items compacted elsewhere cannot be read`,
    });
  }
  try {
    const binary = atob(value.slice(CONTENT_PREFIX.length));
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new CanonicalizationError({ path, reason: "is not valid base64 UTF-8 after its prefix" });
  }
}
