import { createHash } from "node:crypto";
import { decodeDataUri } from "./decode-data-uri";

const MAX_CACHED = 256;
const cache = new Map<string, string>();

/** `sha256:<64 hex>` of raw bytes: the content digest Relax uses for media everywhere. */
export function bytesDigest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/**
 * The identity of an image URL in state hashes: for a `data:` URI the content digest of its decoded
 * bytes (`sha256:<hex>`), so the same bytes sent as a Chat `data:image/png;base64,…` URL, an Anthropic
 * `base64` source or a Responses `input_image` hash alike, whatever the media type spelling or base64
 * line breaks; for any other URL (`http(s)://`, which the state hash cannot fetch) `url:<the URL>`.
 * A `data:` URI that does not decode is identified by its text (`url:…`); rendering rejects it later.
 * The last 256 results are cached by URL.
 */
export function imageIdentity(url: string): string {
  const cached = cache.get(url);
  if (cached !== undefined) return cached;
  let identity: string;
  try {
    const payload = decodeDataUri(url);
    identity = payload === undefined ? `url:${url}` : bytesDigest(payload.bytes);
  } catch {
    identity = `url:${url}`;
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(url, identity);
  return identity;
}
