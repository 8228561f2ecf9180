import { describe, expect, it } from "vitest";
import * as sglang from "../index";

// The literal global symbols of the Relax error contract, written out here on purpose: a test of the
// package's own constant would pass even if `@relax/chat`'s `RelaxError.isInstance` could not see them.
const relaxError = Symbol.for("relax.error");
const symbolOf = (name: string) => Symbol.for(`relax.error.${name}`);
const url = "http://127.0.0.1:30000/generate";

const cases: Array<{ name: string; error: Error; ancestors: string[] }> = [
  { name: "SglangError", error: new sglang.SglangError({ message: "m" }), ancestors: [] },
  {
    name: "SglangApiError",
    error: new sglang.SglangApiError({ status: 400, body: "x", url }),
    ancestors: ["SglangError"],
  },
  {
    name: "ContextLengthError",
    error: new sglang.ContextLengthError({ status: 400, body: "x", url, numbers: {} }),
    ancestors: ["SglangError", "SglangApiError"],
  },
  {
    name: "SglangServerError",
    error: new sglang.SglangServerError({ status: 500, body: "x", url }),
    ancestors: ["SglangError", "SglangApiError"],
  },
  {
    name: "SglangAbortError",
    error: new sglang.SglangAbortError({ sent: false }),
    ancestors: ["SglangError"],
  },
  {
    name: "SglangConnectionError",
    error: new sglang.SglangConnectionError({ url }),
    ancestors: ["SglangError"],
  },
  {
    name: "SglangInvalidArgumentError",
    error: new sglang.SglangInvalidArgumentError({ field: "rid", reason: "bad" }),
    ancestors: ["SglangError"],
  },
  {
    name: "SglangResponseError",
    error: new sglang.SglangResponseError({ url, path: "meta_info", reason: "bad" }),
    ancestors: ["SglangError"],
  },
  {
    name: "SglangTimeoutError",
    error: new sglang.SglangTimeoutError({ url, timeoutMs: 5 }),
    ancestors: ["SglangError"],
  },
];

type ErrorClass = { isInstance(error: unknown): boolean };
const exported = Object.entries(sglang).filter(
  ([name, value]) => /^[A-Z]\w*Error$/.test(name) && typeof value === "function",
);

describe("@relax/sglang error contract", () => {
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
    const cls = (sglang as unknown as Record<string, ErrorClass>)[name]!;
    expect(cls.isInstance({ [relaxError]: true, [symbolOf(name)]: true })).toBe(true);
    expect(cls.isInstance({ [symbolOf(name)]: false })).toBe(false);
    expect(cls.isInstance(new Error("plain"))).toBe(false);
  });
});
