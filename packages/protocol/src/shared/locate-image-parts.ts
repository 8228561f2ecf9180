import type { Protocol } from "./protocol";

/** One image of a request body, in the protocol's own terms. */
export interface WireImage {
  /** Field path in the protocol's terms: `messages[1].content[0]`, `input[2].output[1]`, `messages[3].content[0].content[1]`. */
  path: string;
  /** The URL it becomes in canonical content (`data:<media_type>;base64,…` for an Anthropic base64 source). */
  url: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function chatUrl(part: Record<string, unknown>): string | undefined {
  const value = part.type === "image_url" ? part.image_url : (part.image ?? part.image_url ?? part.url);
  const url = isRecord(value) ? value.url : value;
  return typeof url === "string" ? url : undefined;
}

function anthropicUrl(block: Record<string, unknown>): string | undefined {
  const source = block.source;
  if (!isRecord(source)) return undefined;
  if (source.type === "url" && typeof source.url === "string") return source.url;
  if (source.type === "base64" && typeof source.media_type === "string" && typeof source.data === "string") {
    return `data:${source.media_type};base64,${source.data}`;
  }
  return undefined;
}

function collect(
  list: unknown,
  path: string,
  out: WireImage[],
  pick: (part: Record<string, unknown>) => string | undefined,
  isImage: (part: Record<string, unknown>) => boolean,
): void {
  if (!Array.isArray(list)) return;
  list.forEach((part, j) => {
    if (!isRecord(part) || !isImage(part)) return;
    const url = pick(part);
    if (url !== undefined) out.push({ path: `${path}[${j}]`, url });
  });
}

/**
 * The images of a request body in document order, which is also the order their canonical `image_url`
 * parts have (every converter keeps content order): Chat `image_url` / dataset `image` parts of
 * `messages[*].content`; Responses `input_image` parts of message items and `function_call_output`
 * outputs; Anthropic `image` blocks of `messages[*].content` and inside `tool_result` content. Used to
 * name the request field of the k-th canonical image in errors. Reads the raw body defensively (it runs
 * after the converter accepted it).
 */
export function locateImageParts(protocol: Protocol, body: unknown): WireImage[] {
  const out: WireImage[] = [];
  if (!isRecord(body)) return out;
  if (protocol === "chat-completions") {
    if (!Array.isArray(body.messages)) return out;
    body.messages.forEach((message, i) => {
      if (!isRecord(message)) return;
      collect(
        message.content,
        `messages[${i}].content`,
        out,
        chatUrl,
        (p) => p.type === "image_url" || p.type === "image",
      );
    });
  } else if (protocol === "responses") {
    if (!Array.isArray(body.input)) return out;
    const pick = (p: Record<string, unknown>) => (typeof p.image_url === "string" ? p.image_url : undefined);
    const isImage = (p: Record<string, unknown>) => p.type === "input_image";
    body.input.forEach((item, i) => {
      if (!isRecord(item)) return;
      if (item.type === "function_call_output")
        collect(item.output, `input[${i}].output`, out, pick, isImage);
      else if (item.type === undefined || item.type === "message")
        collect(item.content, `input[${i}].content`, out, pick, isImage);
    });
  } else {
    if (!Array.isArray(body.messages)) return out;
    const isImage = (p: Record<string, unknown>) => p.type === "image";
    body.messages.forEach((message, i) => {
      if (!isRecord(message) || !Array.isArray(message.content)) return;
      message.content.forEach((block, j) => {
        if (!isRecord(block)) return;
        const path = `messages[${i}].content[${j}]`;
        if (block.type === "image") {
          const url = anthropicUrl(block);
          if (url !== undefined) out.push({ path, url });
        } else if (block.type === "tool_result") {
          collect(block.content, `${path}.content`, out, anthropicUrl, isImage);
        }
      });
    });
  }
  return out;
}
