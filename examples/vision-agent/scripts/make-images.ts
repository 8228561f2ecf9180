/**
 * Writes the example's screenshots (`data/images/screen-*.png`) and dataset (`data/screens.jsonl`).
 * Each screenshot is a 112×84 "window" with a title bar and three buttons in a row; one button is
 * highlighted (a yellow frame). Drawn pixel by pixel into a raw RGB buffer and encoded with sharp, so
 * the files are reproducible: run `pnpm make-images` and `git diff` shows nothing.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";

const WIDTH = 112;
const HEIGHT = 84;
export const LABELS = ["Open", "Save", "Quit"] as const;

function drawScreen(highlight: number): Buffer {
  const pixels = Buffer.alloc(WIDTH * HEIGHT * 3, 0xf0);
  const fill = (x0: number, y0: number, x1: number, y1: number, rgb: [number, number, number]) => {
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) pixels.set(rgb, (y * WIDTH + x) * 3);
  };
  fill(0, 0, WIDTH, 12, [40, 60, 120]); // title bar
  LABELS.forEach((_, i) => {
    const x0 = 8 + i * 34;
    if (i === highlight) fill(x0 - 2, 50, x0 + 30, 72, [250, 210, 0]);
    fill(
      x0,
      52,
      x0 + 28,
      70,
      [
        [200, 60, 60],
        [60, 160, 60],
        [60, 60, 200],
      ][i] as [number, number, number],
    );
  });
  return pixels;
}

const dir = join(import.meta.dirname, "..", "data");
mkdirSync(join(dir, "images"), { recursive: true });
const rows: string[] = [];
for (let i = 0; i < LABELS.length; i++) {
  const file = `images/screen-${i}.png`;
  const png = await sharp(drawScreen(i), { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
    .png({ compressionLevel: 9 })
    .toBuffer();
  writeFileSync(join(dir, file), png);
  rows.push(
    JSON.stringify({
      prompt:
        "<image>Which button is highlighted? Zoom into the bottom half first, then answer with its label.",
      images: [file],
      metadata: { id: `screen-${i}`, answer: LABELS[i] },
    }),
  );
}
writeFileSync(join(dir, "screens.jsonl"), `${rows.join("\n")}\n`);
