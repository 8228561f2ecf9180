/**
 * The default id factory: `<prefix>_<32 hex>` from `crypto.randomUUID()` (e.g. `resp_3f0c…`,
 * `call_…`). The handler takes `createId` as an option so tests get deterministic ids.
 */
export function createDefaultId(prefix: string): string {
  return `${prefix}_${globalThis.crypto.randomUUID().replaceAll("-", "")}`;
}
