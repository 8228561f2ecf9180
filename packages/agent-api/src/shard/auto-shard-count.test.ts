import { describe, expect, it } from "vitest";
import { autoShardCount, measuredAutoShardCount } from "./auto-shard-count";

describe("autoShardCount", () => {
  it("should pick one shard below 4 free cores, whatever the load", () => {
    expect(autoShardCount({ cores: 1, load: 0 })).toBe(1);
    expect(autoShardCount({ cores: 2, load: 0 })).toBe(1);
    expect(autoShardCount({ cores: 3, load: 0 })).toBe(1);
    expect(autoShardCount({ cores: 2, load: 13.3 })).toBe(1);
    expect(autoShardCount({ cores: 8, load: 5 })).toBe(1);
  });

  it("should pick half the free cores from 4 free cores, at most 16", () => {
    expect(autoShardCount({ cores: 4, load: 0 })).toBe(2);
    expect(autoShardCount({ cores: 5, load: 0 })).toBe(2);
    expect(autoShardCount({ cores: 8, load: 0 })).toBe(4);
    expect(autoShardCount({ cores: 16, load: 6.5 })).toBe(4);
    expect(autoShardCount({ cores: 32, load: 0 })).toBe(16);
    expect(autoShardCount({ cores: 128, load: 10 })).toBe(16);
  });

  it("should ignore a load average the platform does not report", () => {
    expect(autoShardCount({ cores: 8, load: Number.NaN })).toBe(4);
    expect(autoShardCount({ cores: 8, load: -1 })).toBe(4);
  });

  it("should measure this machine within 1..16", () => {
    const count = measuredAutoShardCount();
    expect(Number.isInteger(count) && count >= 1 && count <= 16).toBe(true);
  });
});
