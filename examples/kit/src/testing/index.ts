/**
 * @module @relax-examples/kit/testing
 * Test helpers for the example agents: a scripted OpenAI/Anthropic-compatible server, reply builders and
 * a child-process runner.
 */
export {
  type AnthropicMessageSseOptions,
  anthropicMessageSse,
  type ScriptedAnthropicBlock,
} from "./anthropic-message-sse";
export { type BundleAgentEntriesOptions, bundleAgentEntries } from "./bundle-agent-entries";
export { chatCompletion, type ScriptedToolCall } from "./chat-completion-reply";
export {
  anthropicSseFromTurn,
  anthropicToChat,
  chatCompletionFromTurn,
  generateWithPolicy,
  type PolicyTurn,
  parseQwen3Response,
} from "./policy-turn";
export { encodeQwen3, type Qwen3PromptFixture, renderQwen3Prompt } from "./qwen3-prompt";
export { type AgentProcessResult, type RunAgentProcessOptions, runAgentProcess } from "./run-agent-process";
export {
  type RecordedRequest,
  type ScriptedReply,
  type ScriptedServer,
  type ScriptedServerOptions,
  startScriptedServer,
} from "./scripted-server";
export { startPolicyChatServer } from "./start-policy-chat-server";
