import { describe, expect, it } from "vitest";
import { AdvantageResultError } from "../errors/advantage-result-error";
import { type AdvantageInputSlot, validateAdvantageResult } from "./advantage-function";

const input: AdvantageInputSlot[] = [
  { main: { outcome: 1 }, searcher_0: { usefulness: 0.6 } },
  { null: { outcome: 0 } },
];

describe("validateAdvantageResult", () => {
  it("should accept one finite number per exported context, in any key order", () => {
    expect(
      validateAdvantageResult({ input, result: [{ searcher_0: 0.6, main: 1 }, { null: -0.5 }] }),
    ).toEqual([{ main: 1, searcher_0: 0.6 }, { null: -0.5 }]);
  });

  it("should map null and undefined to null (filter the Group)", () => {
    expect(validateAdvantageResult({ input, result: null })).toBeNull();
    expect(validateAdvantageResult({ input, result: undefined })).toBeNull();
  });

  it.each([
    [
      { main: 1 },
      "result: must be a list with one mapping per session, or null to filter the Group; got object",
    ],
    [
      [{ main: 1, searcher_0: 0 }],
      "result: has 1 entries, expected 2 (one per session, in sampled Group order)",
    ],
    [[{ main: 1, searcher_0: 0 }, 0.5], "result[1]: must be a {contextName: number} mapping, got 0.5"],
    [
      [{ main: 1 }, { null: 0 }],
      "result[0].searcher_0: is missing; every exported context needs a value (0 keeps it with zero credit)",
    ],
    [
      [{ main: 1, searcher_0: 0, searcher_1: 0 }, { null: 0 }],
      'result[0].searcher_1: is not an exported context of session 0 (exported: "main", "searcher_0")',
    ],
    [[{ main: Number.NaN, searcher_0: 0 }, { null: 0 }], "result[0].main: must be a finite number, got NaN"],
    [
      [{ main: 1, searcher_0: "0.6" }, { null: 0 }],
      'result[0].searcher_0: must be a finite number, got string "0.6"',
    ],
    [
      [{ main: 1, searcher_0: true }, { null: 0 }],
      "result[0].searcher_0: must be a finite number, got boolean",
    ],
    [
      [{ main: 1, searcher_0: [0.1, 0.2] }, { null: 0 }],
      "result[0].searcher_0: must be a finite number, got array",
    ],
  ])("should reject %j", (result, message) => {
    const call = () => validateAdvantageResult({ input, result });
    expect(call).toThrow(AdvantageResultError);
    expect(call).toThrow(message);
  });
});
