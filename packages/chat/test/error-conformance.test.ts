import { describe, expect, it } from "vitest";
import * as chat from "../src/index";

// The literal global symbols of the error contract, written out here on purpose (not imported from the
// package): a test of the package's own constant would pass even if other packages could not see it.
const relaxError = Symbol.for("relax.error");
const symbolOf = (name: string) => Symbol.for(`relax.error.${name}`);

/** Every error class exported from the package root, with one instance and its marker ancestors. */
const cases: Array<{ name: string; error: Error; ancestors: string[] }> = [
  { name: "RelaxError", error: new chat.RelaxError({ name: "RelaxError", message: "m" }), ancestors: [] },
  {
    name: "FieldError",
    error: new chat.FieldError({ name: "FieldError", path: "a[0]", reason: "bad" }),
    ancestors: [],
  },
  {
    name: "CanonicalizationError",
    error: new chat.CanonicalizationError({ path: "messages[0].role", reason: "bad" }),
    ancestors: ["FieldError"],
  },
  {
    name: "MediaInputError",
    error: new chat.MediaInputError({ path: "messages[0].content[1]", reason: "bad" }),
    ancestors: ["FieldError"],
  },
  {
    name: "InvalidParserInputError",
    error: new chat.InvalidParserInputError({ path: "tools[0]", reason: "bad" }),
    ancestors: ["FieldError"],
  },
  {
    name: "UnknownParserError",
    error: new chat.UnknownParserError({ parserKind: "reasoning", parserName: "x", validNames: ["qwen3"] }),
    ancestors: [],
  },
  {
    name: "ChatTemplateError",
    error: new chat.ChatTemplateError({ reason: "render", message: "m" }),
    ancestors: [],
  },
  {
    name: "ObservationDeltaError",
    error: new chat.ObservationDeltaError({ reason: "text_not_prefix", message: "m" }),
    ancestors: [],
  },
  {
    name: "TokenizerLoadError",
    error: new chat.TokenizerLoadError({ file: "f", reason: "not_found" }),
    ancestors: [],
  },
];

type ErrorClass = { isInstance(error: unknown): boolean; name: string };
const exported = Object.entries(chat).filter(
  ([name, value]) => /^[A-Z]\w*Error$/.test(name) && typeof value === "function",
) as Array<[string, ErrorClass]>;

describe("@relax/chat error contract", () => {
  it("should list every exported error class in this test", () => {
    expect(exported.map(([name]) => name).sort()).toEqual(cases.map((c) => c.name).sort());
  });

  it.each(cases)("should mark $name with the literal global symbols", ({ name, error, ancestors }) => {
    const record = error as unknown as Record<symbol, unknown>;
    expect(record[relaxError]).toBe(true);
    if (name !== "RelaxError") expect(record[symbolOf(name)]).toBe(true);
    for (const ancestor of ancestors) expect(record[symbolOf(ancestor)]).toBe(true);
    expect(error.name).toBe(name);
    expect(error).toBeInstanceOf(Error);
  });

  it.each(cases)("should recognise $name by isInstance from a foreign copy", ({ name }) => {
    const cls = (chat as unknown as Record<string, ErrorClass>)[name]!;
    const foreign = { [relaxError]: true, [symbolOf(name)]: true };
    expect(cls.isInstance(foreign)).toBe(true);
    expect(cls.isInstance(new Error("plain"))).toBe(false);
    expect(cls.isInstance({ [symbolOf(name)]: false })).toBe(false);
  });

  it("should write field errors as `path: reason` and keep the cause", () => {
    const cause = new Error("root");
    const error = new chat.CanonicalizationError({ path: "messages[2].content", reason: "bad", cause });
    expect([error.message, error.path, error.reason, error.param]).toEqual([
      "messages[2].content: bad",
      "messages[2].content",
      "bad",
      "messages",
    ]);
    expect(error.cause).toBe(cause);
    expect(chat.FieldError.isInstance(error)).toBe(true);
  });

  it("should format zod issue paths the one way", () => {
    expect(chat.formatFieldPath(["meta_info", "output_token_logprobs", 3, 1])).toBe(
      "meta_info.output_token_logprobs[3][1]",
    );
    expect(chat.formatFieldPath([3, "content", 0, "type"], "input")).toBe("input[3].content[0].type");
    expect(chat.formatFieldPath([0, "x"])).toBe("[0].x");
    expect(chat.formatFieldPath([], "body")).toBe("body");
    expect(chat.formatFieldPath([])).toBe("");
  });
});
