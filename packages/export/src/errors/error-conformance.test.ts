import { describe, expect, it } from "vitest";
import * as exporting from "../index";

// The literal global symbols of the Relax error contract, written out here on purpose: a test of the
// package's own constant would pass even if other packages could not recognise the errors.
const relaxError = Symbol.for("relax.error");
const symbolOf = (name: string) => Symbol.for(`relax.error.${name}`);

const cases: Array<{ name: string; error: Error; ancestors: string[] }> = [
  {
    name: "AdvantageResultError",
    error: new exporting.AdvantageResultError({ path: "result[0]", reason: "bad" }),
    ancestors: ["FieldError"],
  },
  { name: "ExportConfigError", error: new exporting.ExportConfigError({ issues: [] }), ancestors: [] },
  {
    name: "FunctionLoadError",
    error: new exporting.FunctionLoadError({ spec: "x#y", reason: "r" }),
    ancestors: [],
  },
  {
    name: "GroupSizeError",
    error: new exporting.GroupSizeError({ groupIndex: 0, expected: 2, actual: 1 }),
    ancestors: [],
  },
  {
    name: "RewardValueError",
    error: new exporting.RewardValueError({ path: "reward", reason: "bad" }),
    ancestors: ["FieldError"],
  },
  {
    name: "RowParseError",
    error: new exporting.RowParseError({ line: 1, path: "", reason: "r" }),
    ancestors: [],
  },
];

type ErrorClass = { isInstance(error: unknown): boolean };
const exported = Object.entries(exporting).filter(
  ([name, value]) => /^[A-Z]\w*Error$/.test(name) && typeof value === "function",
);

describe("@relax/export error contract", () => {
  it("should list every exported error class in this test", () => {
    expect(exported.map(([name]) => name).sort()).toEqual(cases.map((c) => c.name).sort());
  });

  it.each(cases)("should mark $name with the literal global symbols", ({ name, error, ancestors }) => {
    const record = error as unknown as Record<symbol, unknown>;
    expect(record[relaxError]).toBe(true);
    expect(record[symbolOf(name)]).toBe(true);
    for (const ancestor of ancestors) expect(record[symbolOf(ancestor)]).toBe(true);
    expect(error.name).toBe(name);
  });

  it.each(cases)("should recognise $name by isInstance from a foreign copy", ({ name }) => {
    const cls = (exporting as unknown as Record<string, ErrorClass>)[name]!;
    expect(cls.isInstance({ [relaxError]: true, [symbolOf(name)]: true })).toBe(true);
    expect(cls.isInstance(new Error("plain"))).toBe(false);
  });

  it("should write field errors as `path: reason`", () => {
    expect(new exporting.RewardValueError({ path: "metadata.score", reason: "NaN" }).message).toBe(
      "metadata.score: NaN",
    );
  });
});
