import { describe, expect, it } from "vitest";
import { extractFinalNumber, normalizeNumber, scoreGsm8kAnswer } from "../src/index";

describe("extractFinalNumber", () => {
  it("should take the number after the last #### marker", () => {
    expect(extractFinalNumber("She makes 9 * 2 = 18 dollars.\n#### 18")).toBe("18");
    expect(extractFinalNumber("#### 5\nActually:\n#### $1,200.50")).toBe("1200.5");
    expect(extractFinalNumber("####-3")).toBe("-3");
  });

  it("should fall back to the last number in the text", () => {
    expect(extractFinalNumber("First 16 - 3 - 4 = 9, then 9 * 2 = 18.")).toBe("18");
    expect(extractFinalNumber("The total is 2,125 bolts.")).toBe("2125");
    expect(extractFinalNumber("It costs .75 dollars")).toBe("0.75");
    expect(extractFinalNumber("no digits here")).toBeNull();
  });
});

describe("normalizeNumber", () => {
  it("should drop separators, a leading plus and trailing zeros", () => {
    expect(normalizeNumber("114,200")).toBe("114200");
    expect(normalizeNumber("16.00")).toBe("16");
    expect(normalizeNumber("+7.50")).toBe("7.5");
    expect(normalizeNumber("-.5")).toBe("-0.5");
    expect(normalizeNumber("-0")).toBe("0");
  });
});

describe("scoreGsm8kAnswer", () => {
  it("should give 1 exactly when the numbers are equal", () => {
    expect(scoreGsm8kAnswer({ predicted: "18", answer: "18" })).toBe(1);
    expect(scoreGsm8kAnswer({ predicted: "2125.0", answer: "2,125" })).toBe(1);
    expect(scoreGsm8kAnswer({ predicted: "17", answer: "18" })).toBe(0);
    expect(scoreGsm8kAnswer({ predicted: "18.01", answer: "18" })).toBe(0);
    expect(scoreGsm8kAnswer({ predicted: null, answer: "18" })).toBe(0);
  });
});
