import { describe, expect, it } from "vitest";
import defaultAdvantage, { advantage } from "../src/advantage";
import { searchCreditAdvantage } from "../src/index";

describe("searchCreditAdvantage", () => {
  it("should be the advantage module's default and `advantage` export", () => {
    expect(defaultAdvantage).toBe(searchCreditAdvantage);
    expect(advantage).toBe(searchCreditAdvantage);
  });

  it("should z-score main and give the searcher half of it on the two-session example", () => {
    const input = [
      { main: { outcome: 1.0 }, searcher_0: { usefulness: 0.6 } },
      { main: { outcome: 0.0 }, searcher_0: { usefulness: 0.2 } },
    ];
    expect(searchCreditAdvantage(input)).toEqual([
      { main: 1, searcher_0: 0.5 },
      { main: -1, searcher_0: -0.5 },
    ]);
  });

  it("should split the searchers' share by their number and keep Group order", () => {
    const result = searchCreditAdvantage([
      {
        main: { role: "main", outcome: 1 },
        searcher_0: { role: "searcher" },
        searcher_1: { role: "searcher" },
      },
      { main: { role: "main", outcome: 0 }, searcher_0: { role: "searcher" } },
      { main: { role: "main", outcome: 0 } },
      { main: { role: "main", outcome: 1 }, searcher_0: {}, searcher_1: {}, searcher_2: {} },
    ]);
    expect(result).toEqual([
      { main: 1, searcher_0: 0.25, searcher_1: 0.25 },
      { main: -1, searcher_0: -0.5 },
      { main: -1 },
      { main: 1, searcher_0: 0.5 / 3, searcher_1: 0.5 / 3, searcher_2: 0.5 / 3 },
    ]);
  });

  it("should use the population standard deviation and prefer a shaped score", () => {
    const result = searchCreditAdvantage([
      { main: { outcome: 1 } },
      { main: { outcome: 0 } },
      { main: { outcome: 0 } },
      { main: { outcome: 0 } },
    ])!;
    expect(result[0]!.main).toBeCloseTo(Math.sqrt(3), 12);
    expect(result[1]!.main).toBeCloseTo(-1 / Math.sqrt(3), 12);
    expect(
      searchCreditAdvantage([{ main: { outcome: 1, shaped: 0.5 } }, { main: { outcome: 1, shaped: 1.5 } }]),
    ).toEqual([{ main: -1 }, { main: 1 }]);
  });

  it("should return null to filter a Group whose main scores are all equal", () => {
    expect(
      searchCreditAdvantage([{ main: { outcome: 1 }, searcher_0: {} }, { main: { outcome: 1 } }]),
    ).toBeNull();
    expect(searchCreditAdvantage([])).toBeNull();
  });

  it("should name the slot that has no main context or no numeric score", () => {
    expect(() => searchCreditAdvantage([{ main: { outcome: 1 } }, { null: { outcome: 0 } }])).toThrow(
      'metadata_by_slot[1]: no "main" context (exported: null)',
    );
    expect(() => searchCreditAdvantage([{ main: { outcome: "1" } }])).toThrow(
      'metadata_by_slot[0].main.outcome: must be a finite number, got "1"',
    );
  });
});
