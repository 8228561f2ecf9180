import { z } from "zod";
import { CalculatorError } from "./calculator-error";
import { evaluateExpression } from "./evaluate-expression";
import { formatNumber } from "./format-number";

/** The calculator tool's name. */
export const CALCULATOR_TOOL_NAME = "calculator";

/** The calculator tool's description, shared by the OpenAI and Anthropic tool definitions. */
export const CALCULATOR_DESCRIPTION =
  "Evaluate an arithmetic expression and return the result. Supports numbers, + - * / ^ %, parentheses and sqrt, abs, round, floor, ceil, min, max.";

/** JSON schema of the calculator's arguments. */
export const CALCULATOR_PARAMETERS = {
  type: "object",
  properties: {
    expression: {
      type: "string",
      description: "The arithmetic expression to evaluate, e.g. 48/2 or (16-3-4)*2.",
    },
  },
  required: ["expression"],
  additionalProperties: false,
} as const;

/**
 * The calculator as a Chat Completions function tool.
 * @see https://platform.openai.com/docs/api-reference/chat/create (tools)
 */
export const calculatorTool = {
  type: "function",
  function: {
    name: CALCULATOR_TOOL_NAME,
    description: CALCULATOR_DESCRIPTION,
    parameters: CALCULATOR_PARAMETERS,
  },
} as const;

/** The calculator's arguments, validated. */
export const calculatorArgumentsSchema = z.object({ expression: z.string() });

/**
 * Runs one calculator tool call and returns the tool message content: the formatted result (`"24"`), or
 * `"Error: …"` naming what was wrong, so the model can correct itself. Never throws for bad model output.
 * @param input The arguments: a JSON string (Chat Completions `function.arguments`) or an object
 *   (Anthropic `tool_use.input`).
 */
export function runCalculator(input: unknown): string {
  let raw = input;
  if (typeof input === "string") {
    try {
      raw = JSON.parse(input);
    } catch {
      return `Error: arguments are not valid JSON: ${input}`;
    }
  }
  const parsed = calculatorArgumentsSchema.safeParse(raw);
  if (!parsed.success) return 'Error: arguments must be {"expression": string}';
  try {
    return formatNumber(evaluateExpression(parsed.data.expression));
  } catch (error) {
    if (CalculatorError.isInstance(error)) return `Error: ${error.message}`;
    throw error;
  }
}
