import type { ImageStore } from "../media/image-store";
import { MediaInputError } from "../media/media-input-error";
import type { MediaItem } from "../media/media-item";
import { imageGrid, type VisionProcessorConfig } from "../media/vision-processor";
import type { ChatMessage } from "../messages/chat-message";
import type { ChatRenderer } from "./create-chat-renderer";
import type { MediaExpansion } from "./token-renderer";

/** The image placeholder token of the Qwen2-VL family. */
export const QWEN_IMAGE_PAD_TOKEN = "<|image_pad|>";

/** Options of {@link createVisionRenderer}. */
export interface VisionRendererOptions {
  /** A renderer whose template reads content parts and prints one placeholder token per image. */
  renderer: ChatRenderer;
  /** The processor's numbers (`parseVisionProcessorConfig` of the model's `preprocessor_config.json`). */
  processor: VisionProcessorConfig;
  /** Where images resolved before the turn are looked up (the gateway resolves every image first). */
  images: ImageStore;
  /** The placeholder token the template prints per image. @default "<|image_pad|>" */
  imagePadToken?: string;
}

/** A {@link ChatRenderer} that also gives the training view of images. */
export interface VisionRenderer extends ChatRenderer {
  /** The id of the image placeholder token. */
  readonly imagePadId: number;
  readonly processor: VisionProcessorConfig;
  expandMedia(input: {
    ids: readonly number[];
    messages: readonly ChatMessage[];
  }): MediaExpansion | undefined;
}

/** The image URLs of `messages`, in prompt order, with their canonical paths. */
export function collectImageUrls(
  messages: readonly ChatMessage[],
  pathPrefix = "messages",
): { url: string; path: string }[] {
  const out: { url: string; path: string }[] = [];
  messages.forEach((message, i) => {
    if (typeof message.content === "string") return;
    message.content.forEach((part, j) => {
      if (part.type === "image_url")
        out.push({ url: part.image_url.url, path: `${pathPrefix}[${i}].content[${j}]` });
    });
  });
  return out;
}

/**
 * Wraps a chat renderer with a Qwen2-VL-family image processor rule. Inference ids are the template's
 * tokens (one `<|image_pad|>` per image: SGLang expands it itself from `image_data`); training ids repeat
 * each placeholder `t·h·w / mergeSize²` times after the processor's `smart_resize` (see
 * {@link imageGrid}), which is what the model's processor produces for the same text, so trainers can
 * rebuild `pixel_values` from the images and match `image_grid_thw`.
 *
 * @throws MediaInputError when the template cannot render content parts, or the tokenizer lacks the
 *   placeholder token.
 */
export function createVisionRenderer({
  renderer,
  processor,
  images,
  imagePadToken = QWEN_IMAGE_PAD_TOKEN,
}: VisionRendererOptions): VisionRenderer {
  if (renderer.contentFormat !== "openai") {
    throw new MediaInputError({
      path: "chat_template",
      reason:
        "the chat template reads content as text only; a vision renderer needs one that loops over content parts",
    });
  }
  const padIds = renderer.tokenizer.encode(imagePadToken);
  if (padIds.length !== 1) {
    throw new MediaInputError({
      path: "tokenizer",
      reason: `${imagePadToken} is not one token of this tokenizer (${padIds.length} ids)`,
    });
  }
  const imagePadId = padIds[0]!;

  function expandMedia({
    ids,
    messages,
  }: {
    ids: readonly number[];
    messages: readonly ChatMessage[];
  }): MediaExpansion | undefined {
    const urls = collectImageUrls(messages);
    let placeholders = 0;
    for (const id of ids) if (id === imagePadId) placeholders++;
    if (urls.length === 0 && placeholders === 0) return undefined;
    if (placeholders !== urls.length) {
      throw new MediaInputError({
        path: "messages",
        reason: `the rendered prompt holds ${placeholders} ${imagePadToken} placeholder(s) for ${urls.length} image(s); message text may not spell the placeholder token`,
      });
    }
    const media: MediaItem[] = urls.map(({ url, path }) => {
      const image = images.get(url);
      if (image === undefined)
        throw new MediaInputError({ path, reason: "the image was not resolved before rendering" });
      let grid: ReturnType<typeof imageGrid>;
      try {
        grid = imageGrid(image.height, image.width, processor);
      } catch (error) {
        if (MediaInputError.isInstance(error))
          throw new MediaInputError({ path, reason: error.reason, cause: error });
        throw error;
      }
      return {
        type: "image",
        digest: image.digest,
        url,
        format: image.format,
        width: image.width,
        height: image.height,
        resizedWidth: grid.resizedWidth,
        resizedHeight: grid.resizedHeight,
        gridThw: grid.gridThw,
        tokens: grid.tokens,
      };
    });
    const trainIds: number[] = [];
    let next = 0;
    for (const id of ids) {
      if (id !== imagePadId) {
        trainIds.push(id);
        continue;
      }
      const count = media[next++]!.tokens;
      for (let k = 0; k < count; k++) trainIds.push(imagePadId);
    }
    return { trainIds, media };
  }

  return { ...renderer, imagePadId, processor, expandMedia };
}
