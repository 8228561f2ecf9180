import {
  absDependencies,
  addDependencies,
  ceilDependencies,
  create,
  divideDependencies,
  type FactoryFunctionMap,
  factorialDependencies,
  floorDependencies,
  type MathNode,
  maxDependencies,
  minDependencies,
  modDependencies,
  multiplyDependencies,
  parseDependencies,
  powDependencies,
  roundDependencies,
  sqrtDependencies,
  subtractDependencies,
  unaryMinusDependencies,
  unaryPlusDependencies,
} from "mathjs";
import { CalculatorError } from "./calculator-error";

// A mathjs instance with only the parser and the functions the calculator allows. Importing the
// factories one by one lets the build tree-shake mathjs (tsup `noExternal`), so an agent process starts
// in a fraction of the time the full library takes.
const math = create({
  parseDependencies,
  addDependencies,
  subtractDependencies,
  multiplyDependencies,
  divideDependencies,
  unaryMinusDependencies,
  unaryPlusDependencies,
  powDependencies,
  modDependencies,
  factorialDependencies,
  sqrtDependencies,
  absDependencies,
  roundDependencies,
  floorDependencies,
  ceilDependencies,
  minDependencies,
  maxDependencies,
} as FactoryFunctionMap);
const parse = math.parse!;

/** Operators the calculator accepts (mathjs function names of `OperatorNode`s). */
const OPERATORS = new Set([
  "add",
  "subtract",
  "multiply",
  "divide",
  "unaryMinus",
  "unaryPlus",
  "pow",
  "mod",
  "factorial",
]);
/** Functions the calculator accepts. */
const FUNCTIONS = new Set(["sqrt", "abs", "round", "floor", "ceil", "min", "max"]);

/** Longest expression accepted, in characters. */
export const MAX_EXPRESSION_LENGTH = 500;

/**
 * Evaluates an arithmetic expression with mathjs, without `eval`: the expression is parsed, every node is
 * checked against a whitelist (numbers, `+ - * / ^ %` and `!`, parentheses, `sqrt abs round floor ceil
 * min max`), and only then evaluated. Variables, assignments, strings, matrices and other functions are
 * refused. Before parsing, thousands separators (`80,000`), `$` signs and `×` / `÷` are normalised, as a
 * model writing GSM8K arithmetic often uses them.
 *
 * @returns A finite number.
 * @throws CalculatorError for a syntax error, a disallowed construct or a non-finite result.
 */
export function evaluateExpression(expression: string): number {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new CalculatorError({
      expression,
      reason: `expression longer than ${MAX_EXPRESSION_LENGTH} characters`,
    });
  }
  const normalized = expression
    .replace(/(\d),(?=\d{3}(?!\d))/g, "$1")
    .replace(/\$/g, "")
    .replace(/×/g, "*")
    .replace(/÷/g, "/")
    .trim();
  if (normalized === "") throw new CalculatorError({ expression, reason: "empty expression" });
  let node: MathNode;
  try {
    node = parse(normalized);
  } catch (error) {
    throw new CalculatorError({
      expression,
      reason: `cannot parse: ${(error as Error).message}`,
      cause: error,
    });
  }
  node.traverse((child) => checkNode(child, expression));
  let value: unknown;
  try {
    value = node.evaluate();
  } catch (error) {
    throw new CalculatorError({ expression, reason: (error as Error).message, cause: error });
  }
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new CalculatorError({ expression, reason: `result is not a finite number (${String(value)})` });
  }
  return value;
}

function checkNode(node: MathNode, expression: string): void {
  switch (node.type) {
    case "ConstantNode":
      if (typeof (node as MathNode & { value: unknown }).value !== "number") {
        throw new CalculatorError({ expression, reason: "only numbers are allowed as constants" });
      }
      return;
    case "ParenthesisNode":
      return;
    case "OperatorNode": {
      const fn = (node as MathNode & { fn: string }).fn;
      if (!OPERATORS.has(fn))
        throw new CalculatorError({ expression, reason: `operator "${fn}" is not allowed` });
      return;
    }
    case "FunctionNode": {
      const name = (node as MathNode & { fn: { name?: string } }).fn.name ?? "";
      if (!FUNCTIONS.has(name))
        throw new CalculatorError({ expression, reason: `function "${name}" is not allowed` });
      return;
    }
    case "SymbolNode":
      // A FunctionNode's name is a SymbolNode child; it was checked above. Any other symbol is a variable.
      if (FUNCTIONS.has((node as MathNode & { name: string }).name)) return;
      throw new CalculatorError({
        expression,
        reason: `unknown name "${(node as MathNode & { name: string }).name}"`,
      });
    default:
      throw new CalculatorError({ expression, reason: `${node.type} is not allowed` });
  }
}
