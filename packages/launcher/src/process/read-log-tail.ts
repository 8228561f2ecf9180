import { open } from "node:fs/promises";

/** Size of the log tail attached to failures (see docs/contract.md#agent-process-contract). */
export const LOG_TAIL_BYTES = 8192;

/**
 * Reads the last `maxBytes` bytes of a log file and decodes them as UTF-8 without splitting a character:
 * continuation bytes at the start of the window and an incomplete sequence at its end are dropped.
 *
 * @param maxBytes window size in bytes. @default 8192
 * @returns the decoded tail; `""` when the file is missing or empty.
 */
export async function readLogTail(path: string, maxBytes: number = LOG_TAIL_BYTES): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch {
    return "";
  }
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    if (length <= 0) return "";
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, size - length);
    return decodeUtf8Window(buffer.subarray(0, bytesRead), { atFileStart: size <= maxBytes });
  } finally {
    await handle.close();
  }
}

/**
 * Decodes a byte window cut out of a UTF-8 stream: leading continuation bytes (the rest of a character
 * that started before the window) and a trailing incomplete sequence are dropped, so the result never
 * contains a split character. Invalid bytes elsewhere become U+FFFD.
 *
 * @param options.atFileStart the window starts at the beginning of the stream (keep leading bytes).
 */
export function decodeUtf8Window(bytes: Uint8Array, { atFileStart = false }: { atFileStart?: boolean } = {}) {
  let start = 0;
  if (!atFileStart) {
    while (start < bytes.length && start < 3 && isContinuation(bytes[start]!)) start++;
  }
  let end = bytes.length;
  // Find the lead byte of the last sequence (at most 3 continuation bytes back) and check it is complete.
  let lead = end - 1;
  while (lead >= start && lead > end - 4 && isContinuation(bytes[lead]!)) lead--;
  if (lead >= start) {
    const expected = sequenceLength(bytes[lead]!);
    if (expected > 1 && lead + expected > end) end = lead;
  }
  return new TextDecoder("utf-8").decode(bytes.subarray(start, end));
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

function sequenceLength(byte: number): number {
  if (byte < 0x80) return 1;
  if ((byte & 0xe0) === 0xc0) return 2;
  if ((byte & 0xf0) === 0xe0) return 3;
  if ((byte & 0xf8) === 0xf0) return 4;
  return 1;
}
