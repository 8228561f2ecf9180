import { RelaxError, readErrorExit } from "@relax/chat";
import { describe, expect, it } from "vitest";
import { ViewInputError } from "./view-input-error";

describe("ViewInputError", () => {
  it("should be a Relax error named ViewInputError that ends a command with exit 1", () => {
    const error = new ViewInputError("dump.json: groups[0]: is required", { cause: new Error("x") });
    expect(error).toBeInstanceOf(Error);
    expect(RelaxError.isInstance(error)).toBe(true);
    expect(ViewInputError.isInstance(error)).toBe(true);
    expect([error.name, error.message]).toEqual(["ViewInputError", "dump.json: groups[0]: is required"]);
    expect(error.cause).toBeInstanceOf(Error);
    expect(readErrorExit(error)).toEqual({ category: "failure", exitCode: 1 });
  });

  it("should reject an object whose marker is not true", () => {
    expect(ViewInputError.isInstance({ [Symbol.for("relax.error.ViewInputError")]: false })).toBe(false);
    expect(ViewInputError.isInstance({ [Symbol.for("relax.error.ViewInputError")]: 1 })).toBe(false);
    expect(ViewInputError.isInstance({ [Symbol.for("relax.error.ViewInputError")]: true })).toBe(true);
    expect(ViewInputError.isInstance(new Error("x"))).toBe(false);
  });
});
