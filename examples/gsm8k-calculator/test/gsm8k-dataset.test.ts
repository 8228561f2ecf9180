import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  buildGsm8kPrompt,
  GSM8K_INSTRUCTION,
  parseGsm8kSolution,
  questionFromPrompt,
  readGsm8kRows,
} from "../src/index";

const relaxFile = join(import.meta.dirname, "../data/gsm8k-relax.jsonl");

describe("parseGsm8kSolution", () => {
  it("should take the calculator annotations and the final number apart", () => {
    const [row] = readGsm8kRows();
    expect(parseGsm8kSolution(row!.answer)).toEqual({
      steps: [
        { expression: "16-3-4", value: "9" },
        { expression: "9*2", value: "18" },
      ],
      finalAnswer: "18",
    });
    expect(parseGsm8kSolution("x <<3/4=3/4>> y\n#### 2,125").finalAnswer).toBe("2125");
    expect(() => parseGsm8kSolution("no marker")).toThrow("GSM8K answer has no '#### <number>' line");
  });
});

describe("bundled data", () => {
  it("should hold the first 300 GSM8K test rows and one Relax prompt row per question", () => {
    const rows = readGsm8kRows();
    expect(rows).toHaveLength(300);
    const relaxRows = readFileSync(relaxFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(relaxRows).toHaveLength(300);
    relaxRows.forEach((relaxRow, index) => {
      expect(relaxRow).toEqual({
        prompt: buildGsm8kPrompt(rows[index]!.question),
        metadata: { answer: parseGsm8kSolution(rows[index]!.answer).finalAnswer, index },
      });
    });
    expect(relaxRows[146].metadata.answer).toBe("2125");
  });

  it("should recover the question from a prompt", () => {
    expect(buildGsm8kPrompt("How many?")).toBe(`How many?\n\n${GSM8K_INSTRUCTION}`);
    expect(questionFromPrompt(buildGsm8kPrompt("How many?"))).toBe("How many?");
    expect(questionFromPrompt("Plain question")).toBe("Plain question");
  });
});
