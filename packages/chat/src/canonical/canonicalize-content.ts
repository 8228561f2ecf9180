import type { ContentPart, MessageContent } from "../messages/chat-message";
import { CanonicalizationError } from "./canonicalization-error";
import { isPlainObject, typeName } from "./json-guards";

/**
 * Canonical content of one message, or `null` when the wire value was `null`/absent. Text-only part
 * lists collapse to a string, joined with `separator` (`""`, or `"\n\n"` for system messages; see
 * docs/contract.md#chat-completions); lists holding media stay lists of `text` / `image_url` parts.
 * Accepted part types:
 * `text`, `image_url` (string or `{url}`; `detail` and other request-only keys dropped) and the dataset
 * form `image` (`{type: "image", image: url}`).
 *
 * @throws CanonicalizationError naming `path` for any other shape.
 */
export function canonicalizeContent(raw: unknown, path: string, separator: string): MessageContent | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === "string") return raw;
  if (!Array.isArray(raw)) {
    throw new CanonicalizationError({
      path,
      reason: `must be a string, a list of content parts or null, got ${typeName(raw)}`,
    });
  }
  const parts: ContentPart[] = raw.map((part, i) => canonicalizePart(part, `${path}[${i}]`));
  if (parts.every((part) => part.type === "text")) {
    return parts.map((part) => (part as { text: string }).text).join(separator);
  }
  return parts;
}

function canonicalizePart(part: unknown, path: string): ContentPart {
  if (!isPlainObject(part)) {
    throw new CanonicalizationError({ path, reason: `must be a content part object, got ${typeName(part)}` });
  }
  switch (part.type) {
    case "text": {
      if (typeof part.text !== "string") {
        throw new CanonicalizationError({ path: `${path}.text`, reason: "must be a string" });
      }
      return { type: "text", text: part.text };
    }
    case "image_url":
      return { type: "image_url", image_url: { url: imageUrl(part.image_url, `${path}.image_url`) } };
    case "image": {
      const source = part.image ?? part.image_url ?? part.url;
      return { type: "image_url", image_url: { url: imageUrl(source, `${path}.image`) } };
    }
    default:
      throw new CanonicalizationError({
        path: `${path}.type`,
        reason: `unsupported content part type ${JSON.stringify(part.type ?? null)}; expected "text", "image_url" or "image"`,
      });
  }
}

function imageUrl(value: unknown, path: string): string {
  const url = isPlainObject(value) ? value.url : value;
  const urlPath = isPlainObject(value) ? `${path}.url` : path;
  if (typeof url !== "string" || url.length === 0) {
    throw new CanonicalizationError({ path: urlPath, reason: "must be a non-empty URL string" });
  }
  return url;
}
