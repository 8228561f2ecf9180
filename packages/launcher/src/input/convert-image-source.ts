import { readFile } from "node:fs/promises";
import { extname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { SessionInputError } from "../errors/session-input-error";
import type { ImageSource } from "./image-source";
import { imageMimeTypeForExtension, sniffImageMimeType } from "./sniff-image-mime-type";

/** Formats decoded at the process boundary: raster images only (no SVG or PDF reaches the decoder). */
const RASTER_TYPES = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/bmp",
  "image/tiff",
  "image/avif",
  "image/heic",
  "image/heif",
]);
const keptUrlPattern = /^(?:https?:\/\/|data:)/i;
const schemePattern = /^[a-z][a-z0-9+.-]*:\/\//i;
const base64Pattern = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/**
 * Converts a dataset image into the `url` of an OpenAI `image_url` content part, as the agent process
 * receives it: `http(s)://` and `data:` URLs are returned unchanged; local files and bytes are decoded
 * (with `sharp`/libvips), converted to RGB (an alpha channel is dropped, grey and palette images are
 * expanded, EXIF orientation is not applied: as `PIL.Image.convert("RGB")` does) and re-encoded as PNG,
 * giving `data:image/png;base64,…`. The format is first checked from the bytes (PNG, JPEG, GIF, WebP,
 * BMP, TIFF, AVIF, HEIC/HEIF; the file extension or `mimeType` is the fallback), so no other format
 * (SVG, PDF) reaches the decoder. An animated image keeps its first frame.
 *
 * @param source the dataset value.
 * @param options.path field path used in errors. @default "image"
 * @param options.baseDir directory relative paths resolve against. @default process.cwd()
 * @throws {SessionInputError} unreadable file, unsupported URL scheme, invalid base64, or bytes that are no
 *   recognised image format.
 * @see docs/contract.md#session-input-output
 */
export async function convertImageSource(
  source: ImageSource,
  { path = "image", baseDir = process.cwd() }: { path?: string; baseDir?: string | undefined } = {},
): Promise<string> {
  if (typeof source === "string") return convertImageString(source, { path, baseDir });
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
    return bytesToDataUri(toBytes(source), { path, mimeType: undefined, fileName: undefined });
  }
  if (typeof source !== "object" || source === null) {
    throw new SessionInputError({ path, message: `unsupported image value (${describe(source)})` });
  }
  if ("url" in source && typeof source.url === "string") {
    return convertImageString(source.url, { path: `${path}.url`, baseDir });
  }
  if ("base64" in source && typeof source.base64 === "string") {
    return bytesToDataUri(decodeBase64(source.base64, `${path}.base64`), {
      path,
      mimeType: source.mimeType,
      fileName: undefined,
    });
  }
  if ("bytes" in source && source.bytes != null) {
    const bytes =
      typeof source.bytes === "string" ? decodeBase64(source.bytes, `${path}.bytes`) : toBytes(source.bytes);
    return bytesToDataUri(bytes, { path, mimeType: source.mimeType, fileName: source.path ?? undefined });
  }
  if ("path" in source && typeof source.path === "string") {
    return fileToDataUri(source.path, { path: `${path}.path`, baseDir, mimeType: source.mimeType });
  }
  throw new SessionInputError({
    path,
    message: "expected a path, URL, bytes, { url }, { path }, { bytes, path } or { base64 } image",
  });
}

async function convertImageString(value: string, { path, baseDir }: { path: string; baseDir: string }) {
  if (keptUrlPattern.test(value)) return value;
  if (/^file:/i.test(value)) {
    let filePath: string;
    try {
      filePath = fileURLToPath(value);
    } catch (error) {
      throw new SessionInputError({
        path,
        message: `invalid file URL ${JSON.stringify(value)}`,
        cause: error,
      });
    }
    return fileToDataUri(filePath, { path, baseDir, mimeType: undefined });
  }
  if (schemePattern.test(value)) {
    throw new SessionInputError({
      path,
      message: `unsupported image URL ${JSON.stringify(value.slice(0, 80))} (expected http(s), data or file)`,
    });
  }
  if (value === "") throw new SessionInputError({ path, message: "empty image path" });
  return fileToDataUri(value, { path, baseDir, mimeType: undefined });
}

async function fileToDataUri(
  filePath: string,
  { path, baseDir, mimeType }: { path: string; baseDir: string; mimeType: string | undefined },
): Promise<string> {
  const absolute = resolve(baseDir, filePath);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(absolute);
  } catch (error) {
    throw new SessionInputError({ path, message: `cannot read image file ${absolute}`, cause: error });
  }
  return bytesToDataUri(bytes, { path, mimeType, fileName: absolute });
}

function bytesToDataUri(
  bytes: Uint8Array,
  { path, mimeType, fileName }: { path: string; mimeType: string | undefined; fileName: string | undefined },
): Promise<string> {
  if (bytes.length === 0) throw new SessionInputError({ path, message: "image bytes are empty" });
  const type =
    sniffImageMimeType(bytes) ??
    mimeType ??
    (fileName ? imageMimeTypeForExtension(extname(fileName).slice(1)) : null);
  if (type === null || !RASTER_TYPES.has(type)) {
    throw new SessionInputError({
      path,
      message:
        "bytes are not a recognised image format (png, jpeg, gif, webp, bmp, tiff, avif, heic); pass mimeType",
    });
  }
  return toRgbPngDataUri(bytes, { path, type });
}

async function toRgbPngDataUri(
  bytes: Uint8Array,
  { path, type }: { path: string; type: string },
): Promise<string> {
  let png: Buffer;
  try {
    png = await sharp(bytes, { pages: 1 }).removeAlpha().toColourspace("srgb").png().toBuffer();
  } catch (error) {
    throw new SessionInputError({
      path,
      message: `cannot decode the ${type} image (${error instanceof Error ? error.message : String(error)})`,
      cause: error,
    });
  }
  return `data:image/png;base64,${png.toString("base64")}`;
}

function decodeBase64(text: string, path: string): Uint8Array {
  if (!base64Pattern.test(text)) throw new SessionInputError({ path, message: "invalid base64 string" });
  return Buffer.from(text, "base64");
}

function toBytes(value: Uint8Array | ArrayBuffer): Uint8Array {
  return value instanceof Uint8Array ? value : new Uint8Array(value);
}

function describe(value: unknown): string {
  return value === null ? "null" : typeof value;
}
