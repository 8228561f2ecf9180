import { describe, expect, it } from "vitest";
import { imageMimeTypeForExtension, sniffImageMimeType } from "./sniff-image-mime-type";

const bytes = (...parts: (string | number[])[]) =>
  Uint8Array.from(
    parts.flatMap((part) => (typeof part === "string" ? [...Buffer.from(part, "latin1")] : part)),
  );

describe("sniffImageMimeType", () => {
  it.each([
    [bytes([0x89], "PNG\r\n\x1a\n", [0, 0]), "image/png"],
    [bytes([0xff, 0xd8, 0xff, 0xdb]), "image/jpeg"],
    [bytes("GIF87a", [1, 0]), "image/gif"],
    [bytes("GIF89a", [1, 0]), "image/gif"],
    [bytes("RIFF", [0, 0, 0, 0], "WEBPVP8L"), "image/webp"],
    [bytes("BM", Array(30).fill(0)), "image/bmp"],
    [bytes("II*\0", [8, 0]), "image/tiff"],
    [bytes("MM\0*", [0, 8]), "image/tiff"],
    [bytes([0, 0, 0, 0x1c], "ftypavif"), "image/avif"],
    [bytes([0, 0, 0, 0x18], "ftypheic"), "image/heic"],
    [bytes([0, 0, 0, 0x18], "ftypmif1"), "image/heif"],
    [bytes([0, 0, 0, 0x18], "ftypisom"), null],
    [bytes("RIFF", [0, 0, 0, 0], "WAVE"), null],
    [bytes("hello"), null],
    [new Uint8Array(0), null],
  ])("should classify sample %#", (input, expected) => {
    expect(sniffImageMimeType(input)).toBe(expected);
  });

  it("should map extensions case-insensitively", () => {
    expect(imageMimeTypeForExtension("JPG")).toBe("image/jpeg");
    expect(imageMimeTypeForExtension("svg")).toBe("image/svg+xml");
    expect(imageMimeTypeForExtension("txt")).toBeNull();
  });
});
