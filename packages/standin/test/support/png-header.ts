/**
 * A data URL of a PNG whose header says `width`×`height` (signature and IHDR only: the stand-in and the
 * Qwen2-VL processor maths read only the size). Shared by the stand-in's vision and engine-session tests.
 */
export function pngHeader(width: number, height: number): string {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const view = new DataView(bytes.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  bytes.set([8, 2, 0, 0, 0], 24);
  return `data:image/png;base64,${Buffer.from(bytes).toString("base64")}`;
}
