import { describe, expect, it } from "vitest";
import { packTokens, unpackTokens, unpackTokensInto } from "./token-store";

describe("packTokens", () => {
  it("should keep 16-bit ids at 2 bytes each and wide ids as index/value pairs, losslessly", () => {
    const ids = Int32Array.from({ length: 100 }, (_, i) => i * 600);
    ids[7] = 151_645;
    ids[99] = 2_147_483_647;
    ids[50] = -1;
    const store = packTokens(ids);
    expect(store).toBeInstanceOf(Uint16Array);
    // 100 low halves, then 4 entries per wide id (index lo/hi, value lo/hi); -1 is wide (0xffffffff).
    expect(store.length).toBe(100 + 4 * 3);
    expect(store.byteLength).toBe(224);
    expect([...store.subarray(100, 104)]).toEqual([7, 0, 151_645 & 0xffff, 151_645 >>> 16]);
    expect(unpackTokens(store, 100)).toEqual(ids);
  });

  it("should keep a delta as its Int32Array when packing saves less than 64 bytes", () => {
    const short = Int32Array.from([1, 2, 3]);
    expect(packTokens(short)).toBe(short);
    expect(unpackTokens(short, 3)).toBe(short);
    // 40 ids, 2 wide: 160 bytes as int32, 80 + 16 = 96 packed: saves exactly 64.
    const edge = Int32Array.from({ length: 40 }, (_, i) => (i < 2 ? 70_000 + i : i));
    expect(packTokens(edge).byteLength).toBe(96);
    const wider = Int32Array.from({ length: 40 }, (_, i) => (i < 3 ? 70_000 + i : i));
    expect(packTokens(wider)).toBe(wider);
  });

  it("should unpack into a number[] or an Int32Array at an offset", () => {
    const ids = Int32Array.from({ length: 64 }, (_, i) => (i % 16 === 0 ? 100_000 + i : i));
    const store = packTokens(ids);
    const array = new Int32Array(66);
    unpackTokensInto(store, 64, array, 2);
    expect([...array.subarray(2)]).toEqual([...ids]);
    const list = new Array<number>(65).fill(-9);
    unpackTokensInto(store, 64, list, 1);
    expect(list).toEqual([-9, ...ids]);
  });
});
