/**
 * @module @relax/launcher/internal
 * The building blocks behind `@relax/launcher`'s public contract, for tools and packages of this workspace
 * that implement a sandbox backend or a harness, or read the contract's files themselves: the contract's
 * names, paths and env layering, agent configuration, session input and output parsing and their types,
 * the option types of the local, uid-pool and bubblewrap backends, and session-folder sweeping.
 *
 * Unstable: these may change in any release. The root entry is the supported surface.
 */

// Configuration and the process contract
export {
  type AgentEnvInheritPolicy,
  DEFAULT_INHERITED_ENV,
} from "../config/agent-env-policy";
export { type AgentEnvInput, assertNoReservedEnvKeys } from "../config/parse-agent-env";
export {
  type AgentProcessConfig,
  type AgentProcessConfigInput,
  resolveAgentProcessConfig,
} from "../config/resolve-agent-process-config";
export {
  buildAgentEnv,
  buildContractEnv,
  type RolloutMode,
  type SessionIdentity,
  type SessionIoPaths,
  sessionIoPaths,
} from "../contract/agent-process-contract";
// Harnesses
export { createCommandHarness } from "../harness/create-command-harness";
// Session input
export type {
  BuildSessionInputOptions,
  SessionPrompt,
} from "../input/build-session-input";
export type { ImageSource } from "../input/image-source";
export { sessionInputSchema } from "../input/session-input";
// Sessions
export type { AgentOutcomeBase } from "../outcome/agent-outcome";
// Session output
export { parseSessionOutput } from "../output/parse-session-output";
export { readSessionOutput } from "../output/read-session-output";
export type {
  ExportRecord,
  ParsedSessionOutput,
  Reward,
  SessionOutputWarning,
  TurnRewards,
} from "../output/session-output";
// Sandboxes
export type { ProcessExit } from "../process/agent-process";
export { DEFAULT_AGENT_LOG_MAX_BYTES } from "../process/capped-log";
export type { BwrapBackendOptions, BwrapNetwork } from "../sandbox/bwrap-backend";
export type { AgentNetwork, LocalSupervision } from "../sandbox/local-process-backend";
export type { SandboxCreateOptions, SandboxSpawnSpec } from "../sandbox/sandbox-backend";
export { sweepStaleSessionRoots } from "../sandbox/session-folders";
export type { AllowedService } from "../sandbox/start-network-relay";
export type { AgentIdentity, UidPoolOptions, UidRange } from "../sandbox/uid-pool";
export type { AgentSessionState } from "../session/agent-session-handle";
