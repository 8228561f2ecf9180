import { type CanonicalRequest, collectImageUrls, type ImageStore, MediaInputError } from "@relax/chat";

/**
 * Gets every image of a request ready before the forest renders it: with no image store (a text-only
 * chat template, or no `--processor-config`) the first image is refused; otherwise each image is decoded
 * (or fetched) into the store, so the vision renderer can size it synchronously. Errors name the
 * request field in the protocol's own terms (`input[2].output[0]`,
 * `messages[3].content[0].content[1]`) when the handler can locate it, else the canonical path.
 *
 * @throws MediaInputError (400) for an image the model cannot take or that cannot be read.
 */
export async function resolveRequestImages(options: {
  request: CanonicalRequest;
  images: ImageStore | undefined;
  /** The wire path of the `index`-th image (`GenerateContext.imagePath`). */
  imagePath?: (index: number, url: string) => string | undefined;
  /** Why images are refused when `images` is undefined. */
  refusal: string;
  signal?: AbortSignal;
}): Promise<void> {
  const { request, images, imagePath, refusal, signal } = options;
  const found = collectImageUrls(request.messages);
  if (found.length === 0) return;
  const pathOf = (index: number) => imagePath?.(index, found[index]!.url) ?? found[index]!.path;
  if (images === undefined) throw new MediaInputError({ path: pathOf(0), reason: refusal });
  for (let index = 0; index < found.length; index++) {
    await images.resolve(found[index]!.url, { path: pathOf(index), ...(signal ? { signal } : {}) });
  }
}
