import { imageSize } from "image-size";
import { decodeDataUri } from "./decode-data-uri";
import { bytesDigest } from "./image-digest";
import { MediaInputError } from "./media-input-error";

/** An image whose bytes were read: what the vision renderer needs synchronously. */
export interface ResolvedImage {
  url: string;
  digest: string;
  /** Detected format (`png`, `jpg`, `gif`, `webp`, `bmp`, `tiff`, …), from the bytes, not the URL. */
  format: string;
  width: number;
  height: number;
  bytes: Uint8Array;
}

/**
 * Format and size of image bytes, from their header (`image-size`; no pixel decode). Width and height
 * are as stored (EXIF orientation is not applied, as the processors' loaders do not apply it either).
 *
 * @throws MediaInputError (at `path`) for bytes that are no supported image, or have no size.
 */
export function describeImageBytes(
  bytes: Uint8Array,
  path = "image",
): { format: string; width: number; height: number } {
  let size: { width?: number; height?: number; type?: string };
  try {
    size = imageSize(bytes);
  } catch (error) {
    throw new MediaInputError({ path, reason: "the bytes are not a supported image format", cause: error });
  }
  if (!size.width || !size.height) {
    throw new MediaInputError({ path, reason: "the image has no readable width and height" });
  }
  return { format: size.type ?? "unknown", width: size.width, height: size.height };
}

/** Fetches the bytes of an `http(s)://` image; the gateway supplies one (with its limits). */
export type ImageFetcher = (url: string, options: { signal?: AbortSignal }) => Promise<Uint8Array>;

/** Options of {@link createImageStore}. */
export interface ImageStoreOptions {
  /** Fetches `http(s)://` images; without it such URLs are refused (send a `data:` URI). */
  fetchImage?: ImageFetcher;
  /** Decoded bytes kept, least recently used dropped first. @default 256 MiB */
  maxBytes?: number;
  /** Largest accepted image in bytes. @default 32 MiB */
  maxImageBytes?: number;
}

/**
 * Resolved images of a gateway, by URL: `resolve` decodes a `data:` URI (or fetches an `http(s)` URL)
 * once, reads width, height and format from the bytes (`image-size`, headers only: no pixel decode),
 * and keeps the result; `get` is the synchronous lookup the vision renderer uses during a turn.
 */
export interface ImageStore {
  /**
   * @param path field path used in errors (`messages[1].content[0]`).
   * @throws MediaInputError for a malformed `data:` URI, bytes that are no image, an unsupported or
   *   unfetchable URL, or an image over `maxImageBytes`.
   */
  resolve(url: string, options?: { path?: string; signal?: AbortSignal }): Promise<ResolvedImage>;
  /** The resolved image of `url`, if `resolve` succeeded for it and it is still kept. */
  get(url: string): ResolvedImage | undefined;
}

/** Creates an {@link ImageStore}. */
export function createImageStore(options: ImageStoreOptions = {}): ImageStore {
  const { fetchImage, maxBytes = 256 * 1024 * 1024, maxImageBytes = 32 * 1024 * 1024 } = options;
  const entries = new Map<string, ResolvedImage>();
  let held = 0;

  const keep = (image: ResolvedImage) => {
    entries.set(image.url, image);
    held += image.bytes.byteLength;
    while (held > maxBytes && entries.size > 1) {
      const [oldest, value] = entries.entries().next().value as [string, ResolvedImage];
      entries.delete(oldest);
      held -= value.bytes.byteLength;
    }
  };

  return {
    get(url) {
      const hit = entries.get(url);
      if (hit !== undefined) {
        entries.delete(url);
        entries.set(url, hit);
      }
      return hit;
    },
    async resolve(url, { path = "image_url.url", signal } = {}) {
      const hit = this.get(url);
      if (hit !== undefined) return hit;
      let bytes: Uint8Array;
      const payload = decodeDataUri(url, path);
      if (payload !== undefined) {
        bytes = payload.bytes;
      } else if (/^https?:\/\//i.test(url)) {
        if (fetchImage === undefined) {
          throw new MediaInputError({
            path,
            reason: "this gateway does not fetch image URLs; send the image as a data: URI",
          });
        }
        try {
          bytes = await fetchImage(url, signal ? { signal } : {});
        } catch (error) {
          throw new MediaInputError({
            path,
            reason: `could not fetch the image (${error instanceof Error ? error.message : String(error)})`,
            cause: error,
          });
        }
      } else {
        throw new MediaInputError({
          path,
          reason: `unsupported image URL ${JSON.stringify(url.slice(0, 40))}; expected a data: URI or http(s)://`,
        });
      }
      if (bytes.byteLength === 0) throw new MediaInputError({ path, reason: "the image is empty" });
      if (bytes.byteLength > maxImageBytes) {
        throw new MediaInputError({
          path,
          reason: `the image has ${bytes.byteLength} bytes; at most ${maxImageBytes} are accepted`,
        });
      }
      let size: { width?: number; height?: number; type?: string; orientation?: number };
      try {
        size = imageSize(bytes);
      } catch (error) {
        throw new MediaInputError({
          path,
          reason: "the bytes are not a supported image format",
          cause: error,
        });
      }
      if (!size.width || !size.height) {
        throw new MediaInputError({ path, reason: "the image has no readable width and height" });
      }
      const image: ResolvedImage = {
        url,
        digest: bytesDigest(bytes),
        format: size.type ?? "unknown",
        width: size.width,
        height: size.height,
        bytes,
      };
      keep(image);
      return image;
    },
  };
}
