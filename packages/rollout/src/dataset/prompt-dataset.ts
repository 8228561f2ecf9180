import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { CanonicalizationError, canonicalizeMessages } from "@relax/chat";
import { DatasetError } from "../errors/dataset-error";

/** One dataset row turned into a session input (before media conversion). */
export interface PromptItem {
  /** 0-based line index of the row among the non-empty lines of the file. */
  index: number;
  /** `messages` for the session input: a string prompt becomes one user message. */
  messages?: unknown[];
  /** `metadata` for the session input. */
  metadata?: Record<string, unknown>;
  /** Raw media values per modality (`--multimodal-keys`), converted by the launcher. */
  media?: Record<string, unknown[]>;
}

/** The image placeholder of the Relax dataset path (`--multimodal-keys`), as the launcher pairs it. */
const IMAGE_PLACEHOLDER = "<image>";

/**
 * The dataset images a prompt consumes: each `<image>` in string content or `text` parts, and each bare
 * `{type: "image"}` part (one without its own image), as the launcher's `buildSessionInput` pairs them.
 */
function countImageSlots(messages: unknown[] | undefined): number {
  let slots = 0;
  const inText = (text: string) => text.split(IMAGE_PLACEHOLDER).length - 1;
  for (const message of messages ?? []) {
    const content = (message as { content?: unknown } | null)?.content;
    if (typeof content === "string") slots += inText(content);
    else if (Array.isArray(content)) {
      for (const part of content as Array<Record<string, unknown> | null>) {
        if (part?.type === "text" && typeof part.text === "string") slots += inText(part.text);
        else if (part?.type === "image" && part.image == null) slots++;
      }
    }
  }
  return slots;
}

/**
 * Reads a JSONL prompt dataset (`--prompt-data`) as the Relax data path does: `inputKey` maps to the
 * session `messages` (a string becomes one user message, a list is kept as OpenAI messages),
 * `metadataKey` maps to `metadata` (an object), `multimodalKeys` (`{"image": "images"}`) collects media.
 * A row without the input key is allowed when it has metadata (metadata-only tasks).
 *
 * @throws DatasetError naming the file and 1-based line for invalid JSON or field types.
 */
export async function readPromptDataset(options: {
  file: string;
  inputKey: string;
  metadataKey?: string;
  multimodalKeys?: Record<string, string>;
}): Promise<PromptItem[]> {
  const { file, inputKey, metadataKey, multimodalKeys } = options;
  const items: PromptItem[] = [];
  const lines = createInterface({
    input: createReadStream(file, "utf8"),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      throw new DatasetError({
        file,
        line: lineNumber,
        reason: `invalid JSON (${(error as Error).message})`,
      });
    }
    if (typeof row !== "object" || row === null || Array.isArray(row)) {
      throw new DatasetError({ file, line: lineNumber, reason: "each line must be a JSON object" });
    }
    const record = row as Record<string, unknown>;
    const item: PromptItem = { index: items.length };
    const input = record[inputKey];
    if (typeof input === "string") item.messages = [{ role: "user", content: input }];
    else if (Array.isArray(input)) item.messages = input;
    else if (input !== undefined && input !== null) {
      throw new DatasetError({
        file,
        line: lineNumber,
        reason: `"${inputKey}" must be a string or a list of messages`,
      });
    }
    if (metadataKey !== undefined) {
      const metadata = record[metadataKey];
      if (metadata !== undefined && metadata !== null) {
        if (typeof metadata !== "object" || Array.isArray(metadata)) {
          throw new DatasetError({ file, line: lineNumber, reason: `"${metadataKey}" must be an object` });
        }
        item.metadata = metadata as Record<string, unknown>;
      }
    }
    if (item.messages !== undefined && multimodalKeys === undefined) {
      // Catch what the agent's first request would be refused for (roles, content, tool calls) now.
      try {
        canonicalizeMessages(item.messages, { path: inputKey });
      } catch (error) {
        if (CanonicalizationError.isInstance(error))
          throw new DatasetError({ file, line: lineNumber, reason: error.message });
        throw error;
      }
    }
    if (item.messages === undefined && item.metadata === undefined) {
      throw new DatasetError({
        file,
        line: lineNumber,
        reason: `row has neither "${inputKey}" nor metadata`,
      });
    }
    if (multimodalKeys) {
      for (const [modality, key] of Object.entries(multimodalKeys)) {
        const value = record[key];
        if (value === undefined || value === null) continue;
        item.media = { ...item.media, [modality]: Array.isArray(value) ? value : [value] };
      }
      const images = item.media?.image?.length ?? 0;
      const slots = countImageSlots(item.messages);
      if (images !== slots) {
        throw new DatasetError({
          file,
          line: lineNumber,
          reason: `${images} image(s) in "${multimodalKeys.image ?? "images"}" but ${slots} ${IMAGE_PLACEHOLDER} placeholder(s) in "${inputKey}"; each image needs one placeholder`,
        });
      }
    }
    items.push(item);
  }
  return items;
}
