import type { GenerateRequestWire } from "./sglang-api";

/** Ids below this get their digits from a shared table; larger ids (no known vocabulary) are formatted. */
const TABLE_LIMIT = 1 << 18;

// `,<digits>` of id v as up to 8 little-endian bytes in (low[v], high[v]) and its length in width[v], for
// every v below TABLE_LIMIT: built once, on the first body, and shared by every session (9 B × 2^18 ≈
// 2.3 MiB per process).
let table: { low: Uint32Array; high: Uint32Array; width: Uint8Array } | undefined;

function digitTable(): { low: Uint32Array; high: Uint32Array; width: Uint8Array } {
  if (table !== undefined) return table;
  const low = new Uint32Array(TABLE_LIMIT);
  const high = new Uint32Array(TABLE_LIMIT);
  const width = new Uint8Array(TABLE_LIMIT);
  for (let id = 0; id < TABLE_LIMIT; id++) {
    const text = `,${id}`;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < text.length; i++) {
      const byte = text.charCodeAt(i);
      if (i < 4) lo |= byte << (8 * i);
      else hi |= byte << (8 * (i - 4));
    }
    low[id] = lo >>> 0;
    high[id] = hi >>> 0;
    width[id] = text.length;
  }
  table = { low, high, width };
  return table;
}

/**
 * The bytes of `POST /generate`'s JSON body: byte-identical to `JSON.stringify({...wire, input_ids:
 * [...inputIds]})` with `input_ids` as the second key (after `rid`), as {@link convertGenerateRequest}
 * builds it, but the ids are written from a shared digit table straight into one buffer (no `number[]`
 * copy, no number-to-string conversion, no UTF-8 re-encoding of the whole text when it is sent): about
 * 4× faster than `JSON.stringify` + encoding at 64k–128k ids.
 *
 * @param wire - the body without `input_ids`; `rid` first.
 * @param inputIds - validated non-negative integer token ids.
 */
export function encodeGenerateBody(
  wire: Omit<GenerateRequestWire, "input_ids">,
  inputIds: ArrayLike<number>,
): Uint8Array<ArrayBuffer> {
  const { rid, ...rest } = wire;
  const restJson = JSON.stringify(rest);
  // Every id is written as `,<digits>`; the first one's comma becomes the `[`.
  const head = `{"rid":${JSON.stringify(rid)},"input_ids":`;
  const tail = restJson === "{}" ? "]}" : `],${restJson.slice(1)}`;
  const n = inputIds.length;
  // 8 bytes per id (7 digits and a comma) cover every table id; larger ids are checked as they come.
  let capacity = Buffer.byteLength(head) + Buffer.byteLength(tail) + n * 8 + 16;
  let buffer = Buffer.allocUnsafe(capacity);
  let view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const start = buffer.write(head, 0, "utf8");
  let offset = start;
  const { low, high, width } = digitTable();
  for (let i = 0; i < n; i++) {
    const id = inputIds[i]!;
    if (id < TABLE_LIMIT) {
      view.setUint32(offset, low[id]!, true);
      view.setUint32(offset + 4, high[id]!, true);
      offset += width[id]!;
    } else {
      const text = `,${id}`;
      if (offset + text.length + 8 > capacity) {
        capacity = capacity * 2 + text.length;
        const next = Buffer.allocUnsafe(capacity);
        buffer.copy(next, 0, 0, offset);
        buffer = next;
        view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
      }
      offset += buffer.write(text, offset, "latin1");
    }
  }
  if (n === 0) offset += 1;
  buffer[start] = 0x5b; // "["
  const tailBytes = Buffer.byteLength(tail);
  if (offset + tailBytes > capacity) {
    const next = Buffer.allocUnsafe(offset + tailBytes);
    buffer.copy(next, 0, 0, offset);
    buffer = next;
  }
  offset += buffer.write(tail, offset, "utf8");
  return buffer.subarray(0, offset) as Uint8Array<ArrayBuffer>;
}
