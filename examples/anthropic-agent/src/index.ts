/**
 * @module @relax-examples/anthropic-agent
 * The GSM8K calculator agent through `@anthropic-ai/sdk` and `/v1/messages` with `stream: true`.
 */
export { calculatorAnthropicTool } from "./calculator-anthropic-tool";
export {
  type AnthropicGsm8kEpisode,
  type RunAnthropicGsm8kAgentOptions,
  runAnthropicGsm8kAgent,
} from "./run-anthropic-gsm8k-agent";
export { type AnthropicConversation, toAnthropicMessages } from "./to-anthropic-messages";
