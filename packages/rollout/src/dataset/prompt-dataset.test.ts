import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatasetError } from "../errors/dataset-error";
import { readPromptDataset } from "./prompt-dataset";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relax-dataset-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function read(lines: unknown[]) {
  const file = join(dir, `d${Math.random().toString(16).slice(2)}.jsonl`);
  await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return {
    file,
    read: () => readPromptDataset({ file, inputKey: "input", multimodalKeys: { image: "images" } }),
  };
}

describe("readPromptDataset with --multimodal-keys", () => {
  it("should pair every image with a placeholder: <image> in text, or a bare {type: image} part", async () => {
    const { read: run } = await read([
      { input: "<image>Describe.", images: ["a.png"] },
      {
        input: [
          {
            role: "user",
            content: [
              { type: "image" },
              { type: "text", text: "and <image>" },
              { type: "image", image: "c.png" },
            ],
          },
        ],
        images: ["a.png", "b.png"],
      },
      { input: "no image" },
    ]);
    expect((await run()).map((item) => item.media)).toEqual([
      { image: ["a.png"] },
      { image: ["a.png", "b.png"] },
      undefined,
    ]);
  });

  it("should name the dataset line when images and placeholders disagree", async () => {
    const { file, read: run } = await read([
      { input: "<image>ok", images: ["a.png"] },
      { input: "<image> and <image>", images: ["a.png"] },
    ]);
    const error = await run().catch((caught: unknown) => caught);
    expect(DatasetError.isInstance(error)).toBe(true);
    expect((error as DatasetError).message).toBe(
      `${file}:2: 1 image(s) in "images" but 2 <image> placeholder(s) in "input"; each image needs one placeholder`,
    );
    const { file: other, read: again } = await read([{ input: "text only", images: ["a.png"] }]);
    await expect(again()).rejects.toThrow(
      `${other}:1: 1 image(s) in "images" but 0 <image> placeholder(s) in "input"`,
    );
  });
});
