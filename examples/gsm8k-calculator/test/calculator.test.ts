import { describe, expect, it } from "vitest";
import {
  CalculatorError,
  evaluateExpression,
  formatNumber,
  parseGsm8kSolution,
  readGsm8kRows,
  runCalculator,
} from "../src/index";

describe("evaluateExpression", () => {
  it("should evaluate arithmetic with precedence, parentheses, powers and whitelisted functions", () => {
    expect(evaluateExpression("16-3-4")).toBe(9);
    expect(evaluateExpression("(16-3-4)*2")).toBe(18);
    expect(evaluateExpression("2+3*4^2")).toBe(50);
    expect(evaluateExpression("80000*1.5")).toBe(120000);
    expect(evaluateExpression("-.5 + 1")).toBe(0.5);
    expect(evaluateExpression("10 % 3")).toBe(1);
    expect(evaluateExpression("sqrt(16) + round(2.6) + max(1, 7)")).toBe(14);
    expect(evaluateExpression("5!")).toBe(120);
  });

  it("should normalise thousands separators, dollar signs and × ÷", () => {
    expect(evaluateExpression("80,000+50,000")).toBe(130000);
    expect(evaluateExpression("$1,234,567 - 7")).toBe(1234560);
    expect(evaluateExpression("6 × 7 ÷ 2")).toBe(21);
    expect(evaluateExpression("max(1,234)")).toBe(1234);
  });

  it("should refuse variables, assignments, strings, other functions and non-finite results", () => {
    const reason = (expression: string) => {
      try {
        evaluateExpression(expression);
      } catch (error) {
        expect(CalculatorError.isInstance(error)).toBe(true);
        expect((error as CalculatorError).expression).toBe(expression);
        return (error as Error).message;
      }
      return "no error";
    };
    expect(reason("x = 3")).toBe("AssignmentNode is not allowed");
    expect(reason("x + 1")).toBe('unknown name "x"');
    expect(reason('"abc"')).toBe("only numbers are allowed as constants");
    expect(reason("sin(1)")).toBe('function "sin" is not allowed');
    expect(reason("import({}, {})")).toBe('function "import" is not allowed');
    expect(reason("[1, 2]")).toBe("ArrayNode is not allowed");
    expect(reason("1 == 1")).toBe('operator "equal" is not allowed');
    expect(reason("1/0")).toBe("result is not a finite number (Infinity)");
    expect(reason("")).toBe("empty expression");
    expect(reason("2 +")).toMatch(/^cannot parse: /);
    expect(reason("1+".repeat(300))).toBe("expression longer than 500 characters");
  });

  it("should reproduce every calculator annotation of the bundled GSM8K rows (within the annotation's rounding)", () => {
    let steps = 0;
    for (const row of readGsm8kRows()) {
      for (const step of parseGsm8kSolution(row.answer).steps) {
        const reference = Number(step.value);
        const decimals = step.value.includes(".") ? step.value.split(".")[1]!.length : 0;
        expect(Math.abs(evaluateExpression(step.expression) - reference)).toBeLessThanOrEqual(
          0.5 * 10 ** -decimals + 1e-9,
        );
        steps++;
      }
    }
    expect(steps).toBe(950);
  });
});

describe("formatNumber", () => {
  it("should print integers as is and round other values to 12 significant digits", () => {
    expect(formatNumber(24)).toBe("24");
    expect(formatNumber(0.1 + 0.2)).toBe("0.3");
    expect(formatNumber(1 / 3)).toBe("0.333333333333");
    expect(formatNumber(-2.5)).toBe("-2.5");
  });
});

describe("runCalculator", () => {
  it("should take Chat JSON arguments or Anthropic input objects and return the result text", () => {
    expect(runCalculator('{"expression": "48/2"}')).toBe("24");
    expect(runCalculator({ expression: "0.1+0.2" })).toBe("0.3");
  });

  it("should turn bad model output into an error message instead of throwing", () => {
    expect(runCalculator("{oops")).toBe("Error: arguments are not valid JSON: {oops");
    expect(runCalculator('{"expr": "1+1"}')).toBe('Error: arguments must be {"expression": string}');
    expect(runCalculator('{"expression": "y*2"}')).toBe('Error: unknown name "y"');
  });
});
