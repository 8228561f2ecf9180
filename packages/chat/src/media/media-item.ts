import { z } from "zod";

/**
 * One image as training receives it (an entry of `multimodal_train_inputs`): enough for a trainer's
 * processor to rebuild `pixel_values` and check the expansion. Sizes in pixels.
 */
export const mediaItemSchema = z.object({
  type: z.literal("image"),
  /** `sha256:<hex>` of the image bytes (the decoded `data:` payload, or the fetched bytes of a URL). */
  digest: z.string(),
  /** The URL exactly as the agent sent it (`data:` URI or `http(s)://`). */
  url: z.string(),
  /** Media type of the bytes as sniffed (`png`, `jpg`, `webp`, …). */
  format: z.string(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  resizedWidth: z.number().int().positive(),
  resizedHeight: z.number().int().positive(),
  /** `image_grid_thw` of the processor: `[t, h, w]` in patches. */
  gridThw: z.tuple([z.number().int(), z.number().int(), z.number().int()]),
  /** Image-pad tokens this image occupies in the training ids. */
  tokens: z.number().int().positive(),
});
/** See {@link mediaItemSchema}. */
export type MediaItem = z.infer<typeof mediaItemSchema>;
