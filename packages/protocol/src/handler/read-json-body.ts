import { CanonicalizationError } from "@relax/chat";
import { ProtocolError } from "../errors/protocol-error";
import type { Protocol } from "../shared/protocol";
import {
  RequestLimitScan,
  type RequestLimits,
  SCAN_SLICE_CHARS,
  scanRequestLimits,
} from "./scan-request-limits";

/** Default of `maxRequestBytes`: 32 MiB, above any real agent request (a 128k-token context is ~0.5–1 MiB of JSON, a few images a few MiB). */
export const DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/**
 * Bodies of at least this many bytes are read chunk by chunk, each chunk decoded and scanned as it
 * arrives (in slices that give the event loop back), so a multi-MiB body is never one long block of work
 * on a shard's loop and an over-limit one is refused where the limit is crossed; smaller ones (a
 * 128k-token context is ~0.5 MiB) are read in one call and scanned at once.
 */
export const LARGE_BODY_BYTES = 1024 * 1024;

/**
 * Default of `maxJsonDepth`: 128 levels of arrays/objects counted from the body itself. The envelope
 * takes about 5 (`tools[0].function.parameters`), each nested JSON-schema property 2 (`properties.x`),
 * so a tool schema may still nest ~60 properties deep; every recursive consumer downstream (zod, the
 * canonical stringify, the template's `tojson`) stays far from the stack limit.
 */
export const DEFAULT_MAX_JSON_DEPTH = 128;

/**
 * Reads a request body of at most `maxBytes` bytes, scans its text against `maxDepth` and `limits`
 * ({@link scanRequestLimits}: one pass, stopped at the first limit crossed, before anything parses it),
 * then parses it as JSON. A 10^5-deep body costs one pass, never the stack.
 *
 * A `content-length` above the limit is refused before a byte is read; a chunked body is refused as soon
 * as the bytes read pass the limit (the rest is not read). A large body over `maxDepth` or `limits` is
 * refused at the chunk where the limit is crossed (its rest is read and dropped undecoded).
 *
 * @throws ProtocolError 413 `request_too_large` when the body is larger than `maxBytes`.
 * @throws CanonicalizationError (`body`) for invalid JSON; (the deep value's path, e.g.
 *   `tools[0].function.parameters.properties.a…`) for a value nested deeper than `maxDepth`.
 * @throws ProtocolError 400 `request_limit_exceeded` for a body over one of `limits`.
 */
export async function readJsonBody(
  request: Request,
  options: { maxBytes: number; maxDepth: number; protocol: Protocol; limits: RequestLimits },
): Promise<unknown> {
  const text = await readBodyText(request, options);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CanonicalizationError({
      path: "body",
      reason: `is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      cause: error,
    });
  }
  return value;
}

function tooLarge(maxBytes: number, detail: string): ProtocolError {
  return new ProtocolError({
    code: "request_too_large",
    message: `request body${detail} exceeds the gateway limit of ${maxBytes} bytes (--max-request-bytes)`,
  });
}

/**
 * The body as UTF-8 text (BOM stripped, invalid bytes replaced), at most `maxBytes` bytes read, scanned
 * against the request limits. A declared `content-length` below {@link LARGE_BODY_BYTES} bounds the body
 * (the HTTP parser reads no more), so it is read in one call (`request.arrayBuffer()`: on
 * `@hono/node-server` straight from the socket's buffers, no WHATWG `Request`/stream built) and scanned
 * at once. A larger body, or one without a length, is streamed: each chunk is decoded and scanned as it
 * arrives ({@link RequestLimitScan}, in slices of {@link SCAN_SLICE_CHARS} with the event loop given back
 * between them), so a body over a limit is refused at the chunk where the limit is crossed. The rest of
 * such a body is then read and dropped undecoded (the client gets its 400 on an intact connection), and
 * a body is cut at `maxBytes`.
 */
async function readBodyText(
  request: Request,
  options: { maxBytes: number; maxDepth: number; protocol: Protocol; limits: RequestLimits },
): Promise<string> {
  const { maxBytes } = options;
  const declared = request.headers.get("content-length");
  const declaredBytes = declared !== null && /^\d+$/.test(declared.trim()) ? Number(declared) : undefined;
  if (declaredBytes !== undefined && declaredBytes > maxBytes) {
    await request.body?.cancel().catch(() => undefined);
    throw tooLarge(maxBytes, ` of ${declaredBytes} bytes`);
  }
  if (declaredBytes !== undefined && declaredBytes < LARGE_BODY_BYTES) {
    const bytes = await request.arrayBuffer();
    // A `Request` built in-process (not from a socket) may carry a body longer than it declares.
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes, "");
    const text = utf8.decode(bytes);
    scanRequestLimits(text, options.protocol, options.limits, options.maxDepth);
    return text;
  }
  if (request.body === null) return "";
  // Each chunk decoded as it arrives (a multi-byte character split between chunks is kept for the next).
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  const scan = new RequestLimitScan(options.protocol, options.limits, options.maxDepth);
  let text = "";
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const piece = done ? decoder.decode() : decoder.decode(value, { stream: true });
      text += piece;
      await scanYielding(scan, piece);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(maxBytes, "");
      }
    }
  } catch (error) {
    if (!(error instanceof ProtocolError && error.code === "request_limit_exceeded") && !isDepthError(error))
      throw error;
    await drain(reader, maxBytes - total);
    throw error;
  }
  return text;
}

/** Pushes `piece` to `scan` in slices of {@link SCAN_SLICE_CHARS}, giving the event loop back between them. */
async function scanYielding(scan: RequestLimitScan, piece: string): Promise<void> {
  if (piece.length <= SCAN_SLICE_CHARS) {
    scan.push(piece);
    return;
  }
  for (let at = 0; at < piece.length && !scan.over; at += SCAN_SLICE_CHARS) {
    if (at > 0) await new Promise((resolve) => setTimeout(resolve, 0));
    scan.push(piece.slice(at, at + SCAN_SLICE_CHARS));
  }
}

/** The scan's depth verdict (the only `CanonicalizationError` it throws): refused like a limit. */
function isDepthError(error: unknown): boolean {
  return error instanceof CanonicalizationError;
}

/** Reads the rest of a refused body and drops it undecoded; past `budget` more bytes it is cancelled. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, budget: number): Promise<void> {
  let left = budget;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      left -= value.byteLength;
      if (left < 0) {
        await reader.cancel().catch(() => undefined);
        return;
      }
    }
  } catch {
    // The client went away: nothing left to drain.
  }
}

const utf8 = new TextDecoder();

/**
 * The path of the first array/object that sits more than `maxDepth` levels deep (the body is level 1),
 * or `undefined`. Depth-first with an explicit stack, so the walk itself cannot overflow.
 */
export function findTooDeep(root: unknown, maxDepth: number): PropertyKey[] | undefined {
  if (typeof root !== "object" || root === null) return undefined;
  // Each frame: a container, its depth, and the key that led to it (parent index in `frames`).
  const frames: { value: object; depth: number; key: PropertyKey; parent: number }[] = [
    { value: root, depth: 1, key: "", parent: -1 },
  ];
  const stack: number[] = [0];
  while (stack.length > 0) {
    const index = stack.pop()!;
    const frame = frames[index]!;
    if (frame.depth > maxDepth) return pathOf(frames, index);
    const push = (key: PropertyKey, child: unknown) => {
      if (typeof child !== "object" || child === null) return;
      frames.push({ value: child, depth: frame.depth + 1, key, parent: index });
      stack.push(frames.length - 1);
    };
    if (Array.isArray(frame.value)) {
      const array = frame.value as unknown[];
      for (let i = array.length - 1; i >= 0; i--) push(i, array[i]);
    } else {
      const record = frame.value as Record<string, unknown>;
      const keys = Object.keys(record);
      for (let i = keys.length - 1; i >= 0; i--) push(keys[i]!, record[keys[i]!]);
    }
  }
  return undefined;
}

function pathOf(frames: { key: PropertyKey; parent: number }[], index: number): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at = index; at > 0; at = frames[at]!.parent) path.push(frames[at]!.key);
  return path.reverse();
}
