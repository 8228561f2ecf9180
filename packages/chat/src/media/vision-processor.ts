import { z } from "zod";
import { MediaInputError } from "./media-input-error";

/**
 * The numbers of a Qwen2-VL-family image processor that decide how many tokens one image becomes
 * (transformers `Qwen2VLImageProcessor`, used by Qwen2-VL, Qwen2.5-VL and, with `patchSize` 16,
 * Qwen3-VL). All sizes in pixels.
 */
export interface VisionProcessorConfig {
  /** Side of one vision patch (`patch_size`: 14 for Qwen2/2.5-VL, 16 for Qwen3-VL). */
  patchSize: number;
  /** Patches merged per side into one LLM token (`merge_size`, 2). */
  mergeSize: number;
  /** Frames per temporal patch (`temporal_patch_size`, 2); a still image is one temporal patch. */
  temporalPatchSize: number;
  /** Lower bound of `height × width` after resize (`min_pixels` / `size.shortest_edge`). */
  minPixels: number;
  /** Upper bound of `height × width` after resize (`max_pixels` / `size.longest_edge`). */
  maxPixels: number;
}

/** Qwen2.5-VL's `preprocessor_config.json` values (transformers defaults for `Qwen2VLImageProcessor`). */
export const QWEN2_VL_PROCESSOR_DEFAULTS: Readonly<VisionProcessorConfig> = Object.freeze({
  patchSize: 14,
  mergeSize: 2,
  temporalPatchSize: 2,
  minPixels: 56 * 56,
  maxPixels: 28 * 28 * 1280,
});

const positiveInt = z.number().int().positive();
const processorJsonSchema = z
  .object({
    patch_size: positiveInt.optional(),
    merge_size: positiveInt.optional(),
    temporal_patch_size: positiveInt.optional(),
    min_pixels: positiveInt.optional(),
    max_pixels: positiveInt.optional(),
    size: z
      .object({ shortest_edge: positiveInt.optional(), longest_edge: positiveInt.optional() })
      .loose()
      .optional(),
  })
  .loose();

/**
 * Reads a model's `preprocessor_config.json` (the parsed JSON object). `min_pixels` / `max_pixels` win
 * over `size.shortest_edge` / `size.longest_edge` (newer transformers write only the latter, meaning
 * the same pixel bounds); every absent key takes {@link QWEN2_VL_PROCESSOR_DEFAULTS}.
 *
 * @throws MediaInputError (path `processor_config.<key>`) for a key that is not a positive integer, or
 *   `min_pixels > max_pixels`.
 */
export function parseVisionProcessorConfig(json: unknown): VisionProcessorConfig {
  const parsed = processorJsonSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new MediaInputError({
      path: ["processor_config", ...issue.path.map(String)].join("."),
      reason: issue.message,
    });
  }
  const value = parsed.data;
  const d = QWEN2_VL_PROCESSOR_DEFAULTS;
  const config: VisionProcessorConfig = {
    patchSize: value.patch_size ?? d.patchSize,
    mergeSize: value.merge_size ?? d.mergeSize,
    temporalPatchSize: value.temporal_patch_size ?? d.temporalPatchSize,
    minPixels: value.min_pixels ?? value.size?.shortest_edge ?? d.minPixels,
    maxPixels: value.max_pixels ?? value.size?.longest_edge ?? d.maxPixels,
  };
  if (config.minPixels > config.maxPixels) {
    throw new MediaInputError({
      path: "processor_config.min_pixels",
      reason: `${config.minPixels} exceeds max_pixels ${config.maxPixels}`,
    });
  }
  return config;
}

/** Python's `round()`: half to even, so 2.5 → 2 and 3.5 → 4. */
function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** Images whose long side exceeds 200 × the short side are refused, as the processor refuses them. */
export const MAX_ASPECT_RATIO = 200;

/**
 * The processor's `smart_resize`: both sides become multiples of `factor = patchSize × mergeSize`
 * (28 for Qwen2.5-VL), nearest first (Python `round`, half to even); if the area then exceeds
 * `maxPixels` both sides shrink by `sqrt(h·w / maxPixels)` and are floored to the factor (at least one
 * factor); if it is under `minPixels` they grow by `sqrt(minPixels / (h·w))` and are ceiled. The aspect
 * ratio is kept as closely as the grid allows.
 *
 * @param height original height in pixels; @param width original width in pixels.
 * @returns the resized `{height, width}` in pixels.
 * @throws MediaInputError (path `image`) for a non-positive size or an aspect ratio over 200.
 */
export function smartResize(
  height: number,
  width: number,
  config: VisionProcessorConfig,
): { height: number; width: number } {
  if (!Number.isInteger(height) || !Number.isInteger(width) || height < 1 || width < 1) {
    throw new MediaInputError({ path: "image", reason: `invalid image size ${width}×${height}` });
  }
  if (Math.max(height, width) / Math.min(height, width) > MAX_ASPECT_RATIO) {
    throw new MediaInputError({
      path: "image",
      reason: `aspect ratio of ${width}×${height} exceeds ${MAX_ASPECT_RATIO}, which the image processor refuses`,
    });
  }
  const factor = config.patchSize * config.mergeSize;
  let h = roundHalfEven(height / factor) * factor;
  let w = roundHalfEven(width / factor) * factor;
  if (h * w > config.maxPixels) {
    const beta = Math.sqrt((height * width) / config.maxPixels);
    h = Math.max(factor, Math.floor(height / beta / factor) * factor);
    w = Math.max(factor, Math.floor(width / beta / factor) * factor);
  } else if (h * w < config.minPixels) {
    const beta = Math.sqrt(config.minPixels / (height * width));
    h = Math.ceil((height * beta) / factor) * factor;
    w = Math.ceil((width * beta) / factor) * factor;
  }
  return { height: h, width: w };
}

/** How one image enters training: its resized size, patch grid and LLM token count. */
export interface ImageGrid {
  resizedHeight: number;
  resizedWidth: number;
  /** `image_grid_thw`: `[1, resizedHeight / patchSize, resizedWidth / patchSize]` for a still image. */
  gridThw: [number, number, number];
  /** Image-pad tokens the processor expands the one placeholder to: `t · h · w / mergeSize²`. */
  tokens: number;
}

/** {@link smartResize} plus the patch grid and token count of one still image. */
export function imageGrid(height: number, width: number, config: VisionProcessorConfig): ImageGrid {
  const resized = smartResize(height, width, config);
  const gridThw: [number, number, number] = [
    1,
    resized.height / config.patchSize,
    resized.width / config.patchSize,
  ];
  return {
    resizedHeight: resized.height,
    resizedWidth: resized.width,
    gridThw,
    tokens: (gridThw[0] * gridThw[1] * gridThw[2]) / (config.mergeSize * config.mergeSize),
  };
}
