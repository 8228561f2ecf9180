/**
 * @module @relax-examples/kit
 * Shared pieces of the Relax example agents: the agent process contract (session env, input, output) and
 * helpers for stand-in policies that read Qwen3-rendered prompts. Test helpers are in `./testing`.
 */
export { AgentSessionError } from "./session/agent-session-error";
export type { ExportRecord, ImplicitOutput } from "./session/export-record";
export {
  type AgentProvider,
  type AgentSession,
  type ReadAgentSessionOptions,
  readAgentSession,
  readSessionInput,
} from "./session/read-agent-session";
export { type SessionInput, sessionInputMessageSchema, sessionInputSchema } from "./session/session-input";
export { type WriteAgentOutputOptions, writeAgentOutput } from "./session/write-agent-output";
export { formatPythonJson, formatQwen3Assistant, type Qwen3ToolCall } from "./standin/format-qwen3-assistant";
export {
  isToolResponseTurn,
  lastUserQueryIndex,
  parseQwen3Prompt,
  type Qwen3Prompt,
  type Qwen3PromptTurn,
  systemText,
  toolResponsesAfter,
} from "./standin/parse-qwen3-prompt";
export { requestSeedKey, seededFraction } from "./standin/seeded-fraction";
export type { StandinPolicy, StandinPolicyReply, StandinPolicyRequest } from "./standin/standin-policy";
