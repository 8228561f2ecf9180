import { QWEN2_VL_PROCESSOR_DEFAULTS } from "@relax/chat";
import { afterEach, describe, expect, it } from "vitest";
import { createStandinEngine, type StandinEngine } from "../src/index";
import { constantPolicy } from "../src/testing/index";
import { pngHeader } from "./support/png-header";
import { qwen3Tokenizer } from "./support/qwen3-tokenizer";

// biome-ignore lint/suspicious/noExplicitAny: replies are JSON read by known paths in assertions
type Json = any;

// The stand-in is not a model: it only checks image_data against the placeholders and reports the
// expanded prompt length the way SGLang does, from the same processor rule as the gateway.
const tokenizer = await qwen3Tokenizer();
const engines: StandinEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});

const PAD = 151655;

async function start(vision: boolean, contextLength = 32768) {
  const engine = createStandinEngine({
    tokenizer,
    policy: constantPolicy("ok"),
    contextLength,
    ...(vision ? { vision: { processor: QWEN2_VL_PROCESSOR_DEFAULTS, imagePadId: PAD } } : {}),
  });
  engines.push(engine);
  await engine.listen();
  return engine;
}
async function generate(engine: StandinEngine, body: Record<string, unknown>) {
  const response = await fetch(`${engine.url}/generate`, {
    method: "POST",
    body: JSON.stringify({ sampling_params: { max_new_tokens: 4 }, ...body }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, Json> };
}

describe("stand-in image_data", () => {
  const ids = [151644, 872, 198, 151652, PAD, 151653, 151652, PAD, 151653, 151645, 198];

  it("should report the expanded prompt length (640×480 → 391 pads, 98×70 → 8 pads)", async () => {
    const engine = await start(true);
    const { status, body } = await generate(engine, {
      input_ids: ids,
      image_data: [pngHeader(640, 480), pngHeader(98, 70)],
    });
    expect(status).toBe(200);
    expect(body.meta_info.prompt_tokens).toBe(ids.length - 2 + 391 + 8);
    const text = await generate(engine, { input_ids: [1, 2, 3] });
    expect(text.body.meta_info.prompt_tokens).toBe(3);
  });

  it("should refuse a count mismatch, an unreadable image, a URL and a text-only engine", async () => {
    const engine = await start(true);
    expect(await generate(engine, { input_ids: ids, image_data: [pngHeader(8, 8)] })).toEqual({
      status: 400,
      body: expect.objectContaining({
        error: expect.objectContaining({
          message: `input_ids hold 2 image placeholder(s) (token ${PAD}) but image_data has 1 image(s)`,
        }),
      }),
    });
    const bad = await generate(engine, { input_ids: [PAD], image_data: ["data:image/png;base64,QUFB"] });
    expect([bad.status, bad.body.error.message]).toEqual([
      400,
      "image_data[0]: the bytes are not a supported image format",
    ]);
    const url = await generate(engine, { input_ids: [PAD], image_data: ["https://example.com/a.png"] });
    expect([url.status, url.body.error.message]).toEqual([
      400,
      "image_data[0]: the stand-in reads data: URIs only (it fetches no URL)",
    ]);
    const textOnly = await start(false);
    const refused = await generate(textOnly, { input_ids: [PAD], image_data: [pngHeader(8, 8)] });
    expect([refused.status, refused.body.error.message]).toEqual([
      400,
      "image_data was given but this stand-in serves a text-only model (no vision processor)",
    ]);
  });

  it("should say in /get_model_info whether it takes images", async () => {
    const info = async (engine: StandinEngine) =>
      ((await (await fetch(`${engine.url}/get_model_info`)).json()) as { has_image_understanding: boolean })
        .has_image_understanding;
    expect([await info(await start(true)), await info(await start(false))]).toEqual([true, false]);
  });

  it("should apply the context length to the expanded prompt", async () => {
    const engine = await start(true, 100);
    const { status, body } = await generate(engine, {
      input_ids: ids.slice(0, 6),
      image_data: [pngHeader(640, 480)],
    });
    expect([status, body.error.message]).toEqual([
      400,
      "The input (396 tokens) is longer than the model's context length (100 tokens).",
    ]);
  });
});
