import { readFile } from "node:fs/promises";
import {
  type ChatRenderer,
  createImageStore,
  createVisionRenderer,
  type ImageFetcher,
  type ImageStore,
  MediaInputError,
  parseVisionProcessorConfig,
  type VisionProcessorConfig,
} from "@relax/chat";
import { ConfigError } from "@relax/rollout";

/** What a rollout needs for images: the renderer the forests use, the image store, the stand-in's view. */
export interface VisionSetup {
  renderer: ChatRenderer;
  /** Present with `--processor-config`: requests may carry images. */
  images?: ImageStore;
  vision?: { processor: VisionProcessorConfig; imagePadId: number };
}

/** Fetches an http(s) image with a timeout and a size cap (the agent chose the URL: untrusted). */
export function createImageFetcher({
  timeoutMs = 30_000,
  maxBytes = 32 * 1024 * 1024,
}: {
  timeoutMs?: number;
  maxBytes?: number;
} = {}): ImageFetcher {
  return async (url, { signal }) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await fetch(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const declared = Number(response.headers.get("content-length") ?? "0");
    if (declared > maxBytes) throw new Error(`${declared} bytes exceed the ${maxBytes}-byte limit`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.byteLength > maxBytes)
      throw new Error(`${bytes.byteLength} bytes exceed the ${maxBytes}-byte limit`);
    return bytes;
  };
}

/**
 * With `--processor-config` (a `preprocessor_config.json`), wraps the chat renderer with the vision
 * processor rule (`createVisionRenderer`) and an image store that decodes `data:` URIs and fetches
 * http(s) images; without it, the text renderer as it is (requests with images are then 400s).
 *
 * @throws ConfigError for an unreadable or invalid processor config, or a chat template / tokenizer
 *   that cannot render images (a text-only template, no `<|image_pad|>` token).
 */
export async function loadVisionSetup(options: {
  renderer: ChatRenderer;
  processorConfigPath?: string;
}): Promise<VisionSetup> {
  const { renderer, processorConfigPath } = options;
  if (processorConfigPath === undefined) return { renderer };
  let processor: VisionProcessorConfig;
  try {
    processor = parseVisionProcessorConfig(JSON.parse(await readFile(processorConfigPath, "utf8")));
  } catch (error) {
    throw new ConfigError({
      message: `--processor-config ${processorConfigPath}: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  const images = createImageStore({ fetchImage: createImageFetcher() });
  try {
    const vision = createVisionRenderer({ renderer, processor, images });
    return { renderer: vision, images, vision: { processor, imagePadId: vision.imagePadId } };
  } catch (error) {
    if (!MediaInputError.isInstance(error)) throw error;
    throw new ConfigError({
      message: `--processor-config needs a vision chat template and tokenizer: ${error.message} (set --chat-template-path)`,
    });
  }
}
