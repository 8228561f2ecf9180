/**
 * Detects an image format from its leading bytes (magic numbers), so data URIs carry the right MIME type.
 * Recognises PNG, JPEG, GIF, WebP, BMP, TIFF, AVIF and HEIC/HEIF.
 *
 * @returns the MIME type, or `null` when the bytes are not a recognised image format.
 */
export function sniffImageMimeType(bytes: Uint8Array): string | null {
  const startsWith = (offset: number, signature: readonly number[]) =>
    signature.every((byte, index) => bytes[offset + index] === byte);
  const ascii = (offset: number, text: string) =>
    startsWith(
      offset,
      [...text].map((character) => character.charCodeAt(0)),
    );
  if (startsWith(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(0, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (ascii(0, "GIF87a") || ascii(0, "GIF89a")) return "image/gif";
  if (ascii(0, "RIFF") && ascii(8, "WEBP")) return "image/webp";
  if (ascii(0, "BM") && bytes.length >= 26) return "image/bmp";
  if (startsWith(0, [0x49, 0x49, 0x2a, 0x00]) || startsWith(0, [0x4d, 0x4d, 0x00, 0x2a])) return "image/tiff";
  if (ascii(4, "ftyp")) {
    const brand = String.fromCharCode(...bytes.subarray(8, 12));
    if (brand === "avif" || brand === "avis") return "image/avif";
    if (["heic", "heix", "hevc", "hevx"].includes(brand)) return "image/heic";
    if (brand === "mif1" || brand === "msf1") return "image/heif";
  }
  return null;
}

const mimeTypeByExtension: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  bmp: "image/bmp",
  tif: "image/tiff",
  tiff: "image/tiff",
  avif: "image/avif",
  heic: "image/heic",
  heif: "image/heif",
  svg: "image/svg+xml",
};

/** MIME type for an image file extension (case-insensitive, without the dot), or `null`. */
export function imageMimeTypeForExtension(extension: string): string | null {
  return mimeTypeByExtension[extension.toLowerCase()] ?? null;
}
