import { describe, expect, it } from "vitest";
import * as standin from "../src/index";

describe("@relax/standin error contract", () => {
  it("should export no error class (its HTTP problems are answered as SGLang's error bodies)", () => {
    const exported = Object.entries(standin).filter(
      ([name, value]) => /^[A-Z]\w*Error$/.test(name) && typeof value === "function",
    );
    expect(exported).toEqual([]);
  });
});
