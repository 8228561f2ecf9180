import type { TrainingRow } from "@relax/export";

/** A 4×2 red PNG (base64), small enough to inline. */
export const RED_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAQAAAACCAIAAADwyuo0AAAAEElEQVR4nGM4IScHRwzIHABvCgghBqXSdgAAAABJRU5ErkJggg==";

/** Qwen2-VL-style ids: `<|vision_start|>`, `<|image_pad|>`, `<|vision_end|>`. */
export const VISION_START = 151652;
export const IMAGE_PAD = 151655;
export const VISION_END = 151653;

/**
 * A rows-file row with two images in its prompt: one given as bytes (`data`), one as an http(s) `source` the
 * offline page does not load; 4 and 3 pad tokens, then a 2-token answer.
 */
export function imageRow(): TrainingRow {
  const image = (num: number) => ({
    type: "image" as const,
    digest: `sha256:${"0".repeat(64)}`,
    format: "png",
    original_size: { height: 2, width: 4 },
    resized_size: { height: 28, width: 56 },
    image_grid_thw: [1, 2, 4] as [number, number, number],
    num_tokens: num,
  });
  const tokens = [
    ...[151644, 872, 198, VISION_START],
    ...Array<number>(4).fill(IMAGE_PAD),
    ...[VISION_END, 198, VISION_START],
    ...Array<number>(3).fill(IMAGE_PAD),
    ...[VISION_END, 151645, 198],
    ...[9454, 151645],
  ];
  const promptLength = tokens.length - 2;
  return {
    tokens,
    loss_mask: [1, 1],
    rollout_log_probs: [-0.25, -0.5],
    advantage: 0,
    advantages: [0, 0],
    reward: 1,
    reward_details: {},
    response_length: 2,
    prompt_length: promptLength,
    status: "completed",
    weight_versions: ["0"],
    weight_version_spans: [{ version: "0", start: 0, end: 2 }],
    abort_count: 0,
    rollout_id: "r",
    group_index: 0,
    prompt_index: 0,
    sample_index: 0,
    session_id: "vision",
    context_name: null,
    state_hash: "d".repeat(64),
    num_turns: 1,
    stop_reason: "stop",
    metadata: { rollout_mode: "train", answer: "red" },
    multimodal_train_inputs: [
      { ...image(4), data: RED_PNG },
      { ...image(3), source: "https://example.invalid/screen.png" },
    ],
  };
}
