import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pickWorker } from "./pick-worker";

const workers = ["http://w0:30000", "http://w1:30000", "http://w2:30000", "http://w3:30000"];

describe("pickWorker", () => {
  it("should send a session to the same worker every time, whatever the list order", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (key) => {
        expect(pickWorker(key, workers)).toBe(pickWorker(key, [...workers].reverse()));
      }),
    );
  });

  it("should move only the keys of a removed worker", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 50 }), (keys) => {
        const fewer = workers.filter((worker) => worker !== "http://w2:30000");
        for (const key of keys) {
          const before = pickWorker(key, workers);
          if (before !== "http://w2:30000") expect(pickWorker(key, fewer)).toBe(before);
        }
      }),
    );
  });

  it("should spread sessions over every worker", () => {
    const counts = new Map<string, number>();
    for (let index = 0; index < 4000; index++) {
      const worker = pickWorker(`session-${index}`, workers);
      counts.set(worker, (counts.get(worker) ?? 0) + 1);
    }
    expect(counts.size).toBe(4);
    for (const count of counts.values()) expect(count).toBeGreaterThan(800);
  });
});
