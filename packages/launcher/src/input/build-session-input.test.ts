import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers";
import { buildSessionInput } from "./build-session-input";
import { convertImageSource } from "./convert-image-source";
import { sessionInputSchema } from "./session-input";

const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/** What the launcher makes of PNG_BASE64: an RGB PNG (see convert-image-source.test.ts for the conversion). */
const PNG_URI = await convertImageSource({ base64: PNG_BASE64 });

describe("buildSessionInput", () => {
  it("should turn a string prompt into one user message", async () => {
    expect(await buildSessionInput({ prompt: "Which city hosted the event?" })).toEqual({
      messages: [{ role: "user", content: "Which city hosted the event?" }],
    });
  });

  it("should keep a message list and metadata as they are", async () => {
    const prompt = [
      { role: "system", content: "You are a helpful research assistant." },
      { role: "user", content: "Which city hosted the event?" },
    ];
    const input = await buildSessionInput({ prompt, metadata: { task_id: "example-001" } });
    expect(input).toEqual({ messages: prompt, metadata: { task_id: "example-001" } });
    expect(sessionInputSchema.parse(input)).toEqual(input);
  });

  it("should write metadata-only input and an empty input", async () => {
    expect(await buildSessionInput({ metadata: { question: "2+2", answer: 4 } })).toEqual({
      metadata: { question: "2+2", answer: 4 },
    });
    expect(await buildSessionInput({})).toEqual({});
  });

  it("should replace <image> placeholders with image_url parts, in order, keeping the text around them", async () => {
    const dir = await tempDir("input-images");
    await writeFile(join(dir, "a.png"), Buffer.from(PNG_BASE64, "base64"));
    const input = await buildSessionInput({
      prompt: [
        { role: "system", content: "Look carefully." },
        { role: "user", content: "<image>Describe this image." },
        { role: "user", content: [{ type: "text", text: "Compare <image> with<image>" }] },
      ],
      images: [join(dir, "a.png"), "https://example.com/b.jpg", { url: "data:image/gif;base64,R0lGODlh" }],
    });
    expect(input.messages).toEqual([
      { role: "system", content: "Look carefully." },
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: PNG_URI } },
          { type: "text", text: "Describe this image." },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "Compare " },
          { type: "image_url", image_url: { url: "https://example.com/b.jpg" } },
          { type: "text", text: " with" },
          { type: "image_url", image_url: { url: "data:image/gif;base64,R0lGODlh" } },
        ],
      },
    ]);
  });

  it("should convert dataset {type: 'image'} parts, inline or from the images list", async () => {
    const input = await buildSessionInput({
      prompt: [
        {
          role: "user",
          content: [
            { type: "image", image: { bytes: PNG_BASE64 } },
            { type: "image" },
            { type: "text", text: "What differs?" },
          ],
        },
      ],
      images: ["http://h/second.png"],
    });
    expect(input.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: PNG_URI } },
          { type: "image_url", image_url: { url: "http://h/second.png" } },
          { type: "text", text: "What differs?" },
        ],
      },
    ]);
  });

  it("should support a custom placeholder", async () => {
    const input = await buildSessionInput({
      prompt: "[IMG] here",
      images: ["http://h/x.png"],
      imagePlaceholder: "[IMG]",
    });
    expect(input.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: "http://h/x.png" } },
          { type: "text", text: " here" },
        ],
      },
    ]);
  });

  it("should reject mismatched placeholders, images without a prompt and malformed prompts", async () => {
    await expect(buildSessionInput({ prompt: "<image><image>", images: ["http://h/1.png"] })).rejects.toThrow(
      "prompt[0].content: image placeholder #2 has no matching entry in images",
    );
    await expect(buildSessionInput({ prompt: "no placeholder", images: ["http://h/1.png"] })).rejects.toThrow(
      "images: 1 image(s) but 0 placeholder(s) in the prompt; each image needs one <image>",
    );
    await expect(buildSessionInput({ images: ["http://h/1.png"] })).rejects.toThrow(
      "images: images need a prompt with placeholders",
    );
    await expect(buildSessionInput({ prompt: [{ content: "x" }] })).rejects.toThrow(
      "prompt[0].role: expected a string role",
    );
    await expect(buildSessionInput({ prompt: 5 as never })).rejects.toThrow(
      "prompt: expected a string or a list of messages",
    );
    await expect(buildSessionInput({ metadata: { big: 1n } })).rejects.toThrow(
      "metadata: is not JSON-serialisable",
    );
    await expect(buildSessionInput({ prompt: "<image>", images: ["/missing.png"] })).rejects.toThrow(
      "images[0]: cannot read image file /missing.png",
    );
  });
});
