import { SessionInputError } from "../errors/session-input-error";
import { convertImageSource } from "./convert-image-source";
import type { ImageSource } from "./image-source";
import type { SessionInput } from "./session-input";

/** Default image placeholder of the Relax dataset path (`--multimodal-keys`). */
export const IMAGE_PLACEHOLDER = "<image>";

/** A dataset row's prompt: a string (one user message) or a list of OpenAI-style messages. */
export type SessionPrompt = string | readonly Record<string, unknown>[];

/** Options of {@link buildSessionInput}. */
export interface BuildSessionInputOptions {
  /** The dataset prompt (`--input-key`): a string becomes one user message; a message list is kept. */
  prompt?: SessionPrompt;
  /** The dataset metadata object (`--metadata-key`), passed through as JSON. */
  metadata?: Readonly<Record<string, unknown>>;
  /** Dataset images (`--multimodal-keys`), one per placeholder, in order. */
  images?: readonly ImageSource[];
  /** Placeholder text marking where each image goes. @default "<image>" */
  imagePlaceholder?: string;
  /** Directory relative image paths resolve against. @default process.cwd() */
  baseDir?: string;
}

/**
 * Builds the session input file's content from a dataset row, the way Relax does at the process boundary:
 * a string prompt becomes `[{role: "user", content}]`; each `<image>` placeholder in string content or in
 * a `text` part, and each dataset `{type: "image"}` part, becomes an OpenAI `image_url` part whose URL comes
 * from {@link convertImageSource}, consuming `images` in order. Text around placeholders stays as `text`
 * parts (empty pieces are dropped); messages without placeholders are left untouched.
 *
 * @returns `{messages?, metadata?}`, ready for `JSON.stringify`.
 * @throws {SessionInputError} a prompt that is not a string or a list of `{role}` objects, more or fewer
 *   images than placeholders, images without a prompt, metadata that is not a JSON object, or a bad image.
 * @see docs/contract.md#session-input-output
 */
export async function buildSessionInput({
  prompt,
  metadata,
  images = [],
  imagePlaceholder = IMAGE_PLACEHOLDER,
  baseDir,
}: BuildSessionInputOptions): Promise<SessionInput> {
  const input: SessionInput = {};
  if (prompt !== undefined) {
    const messages = promptToMessages(prompt);
    const urls = await Promise.all(
      images.map((image, index) => convertImageSource(image, { path: `images[${index}]`, baseDir })),
    );
    const cursor = { next: 0 };
    const expanded: Record<string, unknown>[] = [];
    for (const [index, message] of messages.entries()) {
      expanded.push(
        await expandImages({
          message,
          urls,
          cursor,
          placeholder: imagePlaceholder,
          path: `prompt[${index}]`,
          baseDir,
        }),
      );
    }
    input.messages = expanded as NonNullable<SessionInput["messages"]>;
    if (cursor.next !== urls.length) {
      throw new SessionInputError({
        path: "images",
        message: `${urls.length} image(s) but ${cursor.next} placeholder(s) in the prompt; each image needs one ${imagePlaceholder}`,
      });
    }
  } else if (images.length > 0) {
    throw new SessionInputError({ path: "images", message: "images need a prompt with placeholders" });
  }
  if (metadata !== undefined) input.metadata = toJsonObject(metadata, "metadata");
  return input;
}

function promptToMessages(prompt: SessionPrompt): Record<string, unknown>[] {
  if (typeof prompt === "string") return [{ role: "user", content: prompt }];
  if (!Array.isArray(prompt)) {
    throw new SessionInputError({ path: "prompt", message: "expected a string or a list of messages" });
  }
  return prompt.map((message: unknown, index) => {
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      throw new SessionInputError({ path: `prompt[${index}]`, message: "expected a message object" });
    }
    if (typeof (message as { role?: unknown }).role !== "string") {
      throw new SessionInputError({ path: `prompt[${index}].role`, message: "expected a string role" });
    }
    return toJsonObject(message as Record<string, unknown>, `prompt[${index}]`);
  });
}

type ContentPart = Record<string, unknown>;

async function expandImages({
  message,
  urls,
  cursor,
  placeholder,
  path,
  baseDir,
}: {
  message: Record<string, unknown>;
  urls: readonly string[];
  cursor: { next: number };
  placeholder: string;
  path: string;
  baseDir: string | undefined;
}): Promise<Record<string, unknown>> {
  const take = (partPath: string): ContentPart => {
    const url = urls[cursor.next];
    if (url === undefined) {
      throw new SessionInputError({
        path: partPath,
        message: `image placeholder #${cursor.next + 1} has no matching entry in images`,
      });
    }
    cursor.next++;
    return { type: "image_url", image_url: { url } };
  };
  const splitText = (text: string, partPath: string): ContentPart[] => {
    const pieces = text.split(placeholder);
    const parts: ContentPart[] = [];
    pieces.forEach((piece, index) => {
      if (index > 0) parts.push(take(partPath));
      if (piece !== "") parts.push({ type: "text", text: piece });
    });
    return parts;
  };
  const { content } = message;
  if (typeof content === "string") {
    if (!content.includes(placeholder)) return message;
    return { ...message, content: splitText(content, `${path}.content`) };
  }
  if (!Array.isArray(content)) return message;
  let changed = false;
  const parts: unknown[] = [];
  for (const [index, part] of content.entries()) {
    const partPath = `${path}.content[${index}]`;
    const typed = part as ContentPart;
    if (typeof part !== "object" || part === null) {
      parts.push(part);
    } else if (typed.type === "text" && typeof typed.text === "string" && typed.text.includes(placeholder)) {
      changed = true;
      parts.push(...splitText(typed.text, partPath));
    } else if (typed.type === "image") {
      // Dataset-style image item: `{type: "image", image: <source>}` converts its own value; a bare
      // `{type: "image"}` consumes the next entry of `images`, like a placeholder.
      changed = true;
      if (typed.image != null) {
        const url = await convertImageSource(typed.image as ImageSource, {
          path: `${partPath}.image`,
          baseDir,
        });
        parts.push({ type: "image_url", image_url: { url } });
      } else {
        parts.push(take(partPath));
      }
    } else {
      parts.push(part);
    }
  }
  return changed ? { ...message, content: parts } : message;
}

function toJsonObject(value: Readonly<Record<string, unknown>>, path: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SessionInputError({ path, message: "expected a JSON object" });
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new SessionInputError({ path, message: "is not JSON-serialisable", cause: error });
  }
  if (text === undefined) throw new SessionInputError({ path, message: "is not JSON-serialisable" });
  return JSON.parse(text) as Record<string, unknown>;
}
