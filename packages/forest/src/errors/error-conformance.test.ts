import { describe, expect, it } from "vitest";
import * as forest from "../index";

// The literal global symbols of the Relax error contract, written out here on purpose: a test of the
// package's own constant would pass even if other packages could not recognise the errors.
const relaxError = Symbol.for("relax.error");
const symbolOf = (name: string) => Symbol.for(`relax.error.${name}`);

const cases: Array<{ name: string; error: Error; ancestors: string[] }> = [
  {
    name: "SessionContextLengthError",
    error: new forest.SessionContextLengthError({
      maxContextLength: 8,
      promptTokens: 8,
      stage: "observation",
      sessionId: "s",
    }),
    ancestors: [],
  },
  {
    name: "ExportMatchError",
    error: new forest.ExportMatchError({ reason: "no_match", message: "m", sessionId: "s" }),
    ancestors: [],
  },
  {
    name: "ForestInputError",
    error: new forest.ForestInputError({ path: "state.messages", reason: "bad" }),
    ancestors: ["FieldError"],
  },
  {
    name: "NoResponseError",
    error: new forest.NoResponseError({ stateHash: "h", sessionId: "s" }),
    ancestors: [],
  },
  { name: "SnapshotError", error: new forest.SnapshotError({ path: "nodes", reason: "bad" }), ancestors: [] },
  {
    name: "StateConflictError",
    error: new forest.StateConflictError({ stateHash: "h", existingKind: "a", attemptedKind: "b" }),
    ancestors: [],
  },
  {
    name: "UnknownStateError",
    error: new forest.UnknownStateError({ stateHash: "h", sessionId: "s" }),
    ancestors: [],
  },
];

type ErrorClass = { isInstance(error: unknown): boolean };
const exported = Object.entries(forest).filter(
  ([name, value]) => /^[A-Z]\w*Error$/.test(name) && typeof value === "function",
);

describe("@relax/forest error contract", () => {
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
    const cls = (forest as unknown as Record<string, ErrorClass>)[name]!;
    expect(cls.isInstance({ [relaxError]: true, [symbolOf(name)]: true })).toBe(true);
    expect(cls.isInstance(new Error("plain"))).toBe(false);
  });
});
