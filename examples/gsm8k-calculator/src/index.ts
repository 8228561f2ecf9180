/**
 * @module @relax-examples/gsm8k-calculator
 * A multi-turn GSM8K agent with a calculator tool, its reward, dataset helpers and its stand-in policy.
 */
export { CalculatorError } from "./calculator-error";
export {
  CALCULATOR_DESCRIPTION,
  CALCULATOR_PARAMETERS,
  CALCULATOR_TOOL_NAME,
  calculatorArgumentsSchema,
  calculatorTool,
  runCalculator,
} from "./calculator-tool";
export { createGsm8kPolicy, type Gsm8kPolicyOptions, gsm8kPolicy } from "./create-gsm8k-policy";
export { evaluateExpression, MAX_EXPRESSION_LENGTH } from "./evaluate-expression";
export { extractFinalNumber, normalizeNumber, scoreGsm8kAnswer } from "./extract-final-number";
export { formatNumber } from "./format-number";
export {
  GSM8K_DATA_FILE,
  type Gsm8kRow,
  type Gsm8kSolution,
  type Gsm8kStep,
  gsm8kRowSchema,
  parseGsm8kSolution,
  readGsm8kRows,
} from "./gsm8k-dataset";
export { buildGsm8kPrompt, GSM8K_INSTRUCTION, questionFromPrompt } from "./gsm8k-prompt";
export { gsm8kInputFromArgs } from "./gsm8k-session-input";
export {
  GSM8K_MAX_TURNS,
  type Gsm8kEpisode,
  type RunGsm8kAgentOptions,
  runGsm8kAgent,
} from "./run-gsm8k-agent";
