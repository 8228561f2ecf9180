import {
  CALCULATOR_DESCRIPTION,
  CALCULATOR_PARAMETERS,
  CALCULATOR_TOOL_NAME,
} from "@relax-examples/gsm8k-calculator";

/**
 * The GSM8K calculator as an Anthropic Messages tool (`name`, `description`, `input_schema`); the same
 * tool as the Chat Completions example, so Relax projects both to the same canonical function tool.
 * @see https://docs.anthropic.com/en/api/messages (tools)
 */
export const calculatorAnthropicTool = {
  name: CALCULATOR_TOOL_NAME,
  description: CALCULATOR_DESCRIPTION,
  input_schema: CALCULATOR_PARAMETERS,
} as const;
