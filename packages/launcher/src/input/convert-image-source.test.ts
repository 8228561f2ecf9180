import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers";
import { SessionInputError } from "../errors/session-input-error";
import { convertImageSource } from "./convert-image-source";

const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const png = Buffer.from(PNG_BASE64, "base64");
const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);
const webp = Buffer.concat([Buffer.from("RIFF"), Buffer.from([0x1a, 0, 0, 0]), Buffer.from("WEBPVP8 ")]);

describe("convertImageSource", () => {
  it("should keep http(s) and data URLs unchanged", async () => {
    for (const url of ["https://example.com/cat.png", "http://h/x.jpg", "data:image/webp;base64,UklGRg=="]) {
      expect(await convertImageSource(url)).toBe(url);
      expect(await convertImageSource({ url })).toBe(url);
    }
  });

  it("should turn a local file (path, file:// URL, {path}) into a data URI with its sniffed MIME type", async () => {
    const dir = await tempDir("images");
    await writeFile(join(dir, "pixel.png"), png);
    await writeFile(join(dir, "photo.bin"), jpeg); // the bytes decide, not the extension
    const pngUri = `data:image/png;base64,${PNG_BASE64}`;
    expect(await convertImageSource(join(dir, "pixel.png"))).toBe(pngUri);
    expect(await convertImageSource("pixel.png", { baseDir: dir })).toBe(pngUri);
    expect(await convertImageSource(pathToFileURL(join(dir, "pixel.png")).href)).toBe(pngUri);
    expect(await convertImageSource({ path: join(dir, "pixel.png") })).toBe(pngUri);
    expect(await convertImageSource(join(dir, "photo.bin"))).toBe(
      `data:image/jpeg;base64,${Buffer.from(jpeg).toString("base64")}`,
    );
  });

  it("should encode bytes, Hugging Face {bytes, path} dicts and base64 objects", async () => {
    const webpUri = `data:image/webp;base64,${webp.toString("base64")}`;
    expect(await convertImageSource(new Uint8Array(webp))).toBe(webpUri);
    expect(await convertImageSource(webp.buffer.slice(webp.byteOffset, webp.byteOffset + webp.length))).toBe(
      webpUri,
    );
    expect(await convertImageSource({ bytes: new Uint8Array(webp), path: "x.webp" })).toBe(webpUri);
    expect(await convertImageSource({ bytes: webp.toString("base64") })).toBe(webpUri);
    expect(await convertImageSource({ base64: PNG_BASE64 })).toBe(`data:image/png;base64,${PNG_BASE64}`);
    expect(await convertImageSource({ base64: "PHN2Zz48L3N2Zz4=", mimeType: "image/svg+xml" })).toBe(
      "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=",
    );
  });

  it("should fall back to the extension for unrecognised bytes, then fail clearly", async () => {
    const dir = await tempDir("images");
    await writeFile(join(dir, "icon.svg"), "<svg/>");
    await writeFile(join(dir, "notes.txt"), "hello");
    expect(await convertImageSource(join(dir, "icon.svg"))).toBe(
      `data:image/svg+xml;base64,${Buffer.from("<svg/>").toString("base64")}`,
    );
    await expect(convertImageSource(join(dir, "notes.txt"), { path: "images[3]" })).rejects.toThrow(
      "images[3]: bytes are not a recognised image format",
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
