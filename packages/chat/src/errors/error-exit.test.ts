import { describe, expect, it } from "vitest";
import { ERROR_EXIT, ERROR_EXIT_CODES, readErrorExit } from "./error-exit";
import { TokenizerLoadError } from "./tokenizer-load-error";

describe("readErrorExit", () => {
  it("should read the category an error class declares, with its exit code", () => {
    const error = new TokenizerLoadError({ file: "tokenizer.json", reason: "not_found" });
    expect(readErrorExit(error)).toEqual({ category: "failure", exitCode: 1 });
    expect(readErrorExit({ [Symbol.for("relax.error.exit")]: "config" })).toEqual({
      category: "config",
      exitCode: 2,
    });
    expect(readErrorExit({ [ERROR_EXIT]: "interrupted" })).toEqual({
      category: "interrupted",
      exitCode: 130,
    });
  });

  it.each([
    ["a plain Error", new Error("x")],
    ["a string", "config"],
    ["null", null],
    ["an unknown category", { [ERROR_EXIT]: "toString" }],
    ["a non-string category", { [ERROR_EXIT]: 2 }],
  ])("should give no exit for %s", (_, value) => {
    expect(readErrorExit(value)).toBeUndefined();
  });

  it("should give each category its documented code", () => {
    expect(ERROR_EXIT_CODES).toEqual({ config: 2, failure: 1, interrupted: 130 });
  });
});
