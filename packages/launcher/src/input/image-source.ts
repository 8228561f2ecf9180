/**
 * A dataset image, in any of the forms Relax datasets use (`--multimodal-keys` fields):
 * - a string: an `http(s)://` URL or a `data:` URI (kept unchanged), a `file://` URL, or a local path;
 * - raw bytes (`Uint8Array`, Node `Buffer`, `ArrayBuffer`);
 * - `{ url }` or `{ path }`;
 * - `{ bytes, path? }`: the Hugging Face `datasets.Image` encoding; `bytes` may be raw bytes or a base64
 *   string, and `path` is used when `bytes` is null;
 * - `{ base64, mimeType? }`: base64-encoded bytes.
 *
 * `mimeType` overrides format detection (otherwise the bytes' magic number, then the file extension).
 * @see docs/contract.md#session-input-output
 */
export type ImageSource =
  | string
  | Uint8Array
  | ArrayBuffer
  | { url: string }
  | { path: string; mimeType?: string }
  | { bytes: Uint8Array | ArrayBuffer | string | null; path?: string | null; mimeType?: string }
  | { base64: string; mimeType?: string };
