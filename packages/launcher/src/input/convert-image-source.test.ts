import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers";
import { SessionInputError } from "../errors/session-input-error";
import { convertImageSource } from "./convert-image-source";

// A 1×1 RGBA PNG: (0x11, 0x22, 0x33) at alpha 0x80, written by sharp in the test setup.
const png = await sharp(Buffer.from([0x11, 0x22, 0x33, 0x80]), { raw: { width: 1, height: 1, channels: 4 } })
  .png()
  .toBuffer();
const PNG_BASE64 = png.toString("base64");
const jpeg = () =>
  sharp({ create: { width: 2, height: 1, channels: 3, background: { r: 0, g: 0, b: 255 } } })
    .jpeg()
    .toBuffer();

/** What a converted data URI holds, read back with sharp. */
async function decode(uri: string) {
  expect(uri.startsWith("data:image/png;base64,")).toBe(true);
  const bytes = Buffer.from(uri.slice("data:image/png;base64,".length), "base64");
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const meta = await sharp(bytes).metadata();
  return {
    format: meta.format,
    width: info.width,
    height: info.height,
    channels: info.channels,
    pixels: [...data],
  };
}

describe("convertImageSource", () => {
  it("should keep http(s) and data URLs unchanged", async () => {
    for (const url of ["https://example.com/cat.png", "http://h/x.jpg", "data:image/webp;base64,UklGRg=="]) {
      expect(await convertImageSource(url)).toBe(url);
      expect(await convertImageSource({ url })).toBe(url);
    }
  });

  it("should turn a local file (path, file:// URL, {path}) into an RGB PNG data URI", async () => {
    const dir = await tempDir("images");
    await writeFile(join(dir, "pixel.png"), png);
    await writeFile(join(dir, "photo.bin"), await jpeg()); // the bytes decide, not the extension
    for (const source of [
      join(dir, "pixel.png"),
      "pixel.png",
      pathToFileURL(join(dir, "pixel.png")).href,
      { path: join(dir, "pixel.png") },
    ]) {
      const uri = await convertImageSource(source as never, { baseDir: dir });
      // The RGBA pixel (0x11, 0x22, 0x33, alpha 0x80) keeps its colour and loses its alpha, as PIL's convert("RGB").
      expect(await decode(uri)).toEqual({
        format: "png",
        width: 1,
        height: 1,
        channels: 3,
        pixels: [0x11, 0x22, 0x33],
      });
    }
    expect(await decode(await convertImageSource(join(dir, "photo.bin")))).toMatchObject({
      format: "png",
      width: 2,
      height: 1,
      channels: 3,
    });
  });

  it("should convert bytes, Hugging Face {bytes, path} dicts and base64 objects, grey and WebP included", async () => {
    const webp = await sharp({
      create: { width: 3, height: 2, channels: 3, background: { r: 200, g: 10, b: 10 } },
    })
      .webp({ lossless: true })
      .toBuffer();
    const expected = {
      format: "png",
      width: 3,
      height: 2,
      channels: 3,
      pixels: new Array(6).fill([200, 10, 10]).flat(),
    };
    expect(await decode(await convertImageSource(new Uint8Array(webp)))).toEqual(expected);
    expect(
      await decode(
        await convertImageSource(webp.buffer.slice(webp.byteOffset, webp.byteOffset + webp.length)),
      ),
    ).toEqual(expected);
    expect(await decode(await convertImageSource({ bytes: new Uint8Array(webp), path: "x.webp" }))).toEqual(
      expected,
    );
    expect(await decode(await convertImageSource({ bytes: webp.toString("base64") }))).toEqual(expected);
    expect(await decode(await convertImageSource({ base64: PNG_BASE64 }))).toMatchObject({
      channels: 3,
      pixels: [0x11, 0x22, 0x33],
    });
    const grey = await sharp(Buffer.from([0, 128]), { raw: { width: 2, height: 1, channels: 1 } })
      .png()
      .toBuffer();
    expect(await decode(await convertImageSource(new Uint8Array(grey)))).toEqual({
      format: "png",
      width: 2,
      height: 1,
      channels: 3,
      pixels: [0, 0, 0, 128, 128, 128],
    });
  });

  it("should refuse SVG and other non-raster bytes, and undecodable images, clearly", async () => {
    const dir = await tempDir("images");
    await writeFile(join(dir, "icon.svg"), "<svg/>");
    await writeFile(join(dir, "notes.txt"), "hello");
    await writeFile(join(dir, "broken.png"), png.subarray(0, 20));
    await expect(convertImageSource(join(dir, "icon.svg"), { path: "images[2]" })).rejects.toThrow(
      "images[2]: bytes are not a recognised image format",
    );
    await expect(
      convertImageSource({ base64: "PHN2Zz48L3N2Zz4=", mimeType: "image/svg+xml" }),
    ).rejects.toThrow("image: bytes are not a recognised image format");
    await expect(convertImageSource(join(dir, "notes.txt"), { path: "images[3]" })).rejects.toThrow(
      "images[3]: bytes are not a recognised image format",
    );
    await expect(convertImageSource(join(dir, "broken.png"), { path: "images[4]" })).rejects.toThrow(
      "images[4]: cannot decode the image/png image (Input buffer has corrupt header:",
    );
  });

  it("should reject unreadable files, foreign URL schemes, bad base64 and empty bytes with the field path", async () => {
    const cases: [unknown, string][] = [
      ["/no/such/image.png", "images[0]: cannot read image file /no/such/image.png"],
      ["s3://bucket/key.png", 'images[0]: unsupported image URL "s3://bucket/key.png"'],
      [{ base64: "not base64!" }, "images[0].base64: invalid base64 string"],
      [new Uint8Array(0), "images[0]: image bytes are empty"],
      [42, "images[0]: unsupported image value (number)"],
      [{ something: 1 }, "images[0]: expected a path, URL, bytes"],
    ];
    for (const [source, message] of cases) {
      const error = await convertImageSource(source as never, { path: "images[0]" }).catch(
        (caught: unknown) => caught,
      );
      expect(SessionInputError.isInstance(error)).toBe(true);
      expect((error as Error).message.startsWith(message)).toBe(true);
    }
  });
});
