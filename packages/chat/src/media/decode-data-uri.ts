import { MediaInputError } from "./media-input-error";

/** The payload of a `data:` URI. */
export interface DataUriPayload {
  /** The declared media type, lower-cased (`image/png`); `text/plain` when the URI names none (RFC 2397). */
  mimeType: string;
  bytes: Uint8Array;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes a `data:[<mediatype>][;base64],<data>` URI (RFC 2397). Base64 payloads may carry whitespace
 * (it is removed); others are percent-decoded. Returns `undefined` for any URL that is not a `data:`
 * URI, so callers can treat http(s) URLs separately.
 *
 * @param path field path used in errors.
 * @throws MediaInputError for a `data:` URI without a comma or with invalid base64.
 */
export function decodeDataUri(url: string, path = "image_url.url"): DataUriPayload | undefined {
  if (!/^data:/i.test(url)) return undefined;
  const comma = url.indexOf(",");
  if (comma < 0) throw new MediaInputError({ path, reason: "data: URI without a comma before its payload" });
  const header = url.slice(5, comma).split(";");
  const isBase64 = header.length > 1 && header[header.length - 1]!.toLowerCase() === "base64";
  const mimeType = (header[0] ?? "").trim().toLowerCase() || "text/plain";
  const payload = url.slice(comma + 1);
  if (isBase64) {
    const compact = payload.replace(/\s+/g, "");
    if (!BASE64.test(compact) || compact.length % 4 === 1) {
      throw new MediaInputError({ path, reason: "data: URI payload is not valid base64" });
    }
    return { mimeType, bytes: new Uint8Array(Buffer.from(compact, "base64")) };
  }
  let text: string;
  try {
    text = decodeURIComponent(payload);
  } catch (error) {
    throw new MediaInputError({
      path,
      reason: "data: URI payload is not valid percent-encoding",
      cause: error,
    });
  }
  return { mimeType, bytes: new Uint8Array(Buffer.from(text, "latin1")) };
}
