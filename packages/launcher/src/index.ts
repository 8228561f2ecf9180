/**
 * @module @relax/launcher
 * Per-session agent processes for Relax: the `RELAX_*` process contract, session input files, process
 * trees supervised by a child subreaper (`relax-reaper`), active-time timeouts, output parsing, and the
 * Agent Harness × Sandbox Backend interfaces with lifecycle hooks.
 *
 * This file is the public contract: launching sessions, the process contract, session input and output,
 * sandboxes, harnesses, hooks and the typed errors. Process-level building blocks are not exported.
 */

// Configuration and the process contract
export {
  type AgentEnvInheritPolicy,
  DEFAULT_INHERITED_ENV,
  findSecretLookingNames,
  parseAgentEnvInherit,
  selectInheritedEnv,
} from "./config/agent-env-policy";
export { type AgentEnvInput, assertNoReservedEnvKeys, parseAgentEnv } from "./config/parse-agent-env";
export {
  type AgentProcessConfig,
  type AgentProcessConfigInput,
  resolveAgentProcessConfig,
} from "./config/resolve-agent-process-config";
export {
  buildAgentEnv,
  buildContractEnv,
  RELAX_ENV,
  type RolloutMode,
  type SessionIdentity,
  type SessionIoPaths,
  sessionIoPaths,
} from "./contract/agent-process-contract";
// Errors
export { AgentConfigError } from "./errors/agent-config-error";
export { AgentExecutionError, type AgentFailureKind } from "./errors/agent-execution-error";
export { AgentTerminatedError } from "./errors/agent-terminated-error";
export { AgentTimeoutError } from "./errors/agent-timeout-error";
export { LauncherError } from "./errors/launcher-error";
export { ReaperUnavailableError } from "./errors/reaper-unavailable-error";
export { ReservedEnvKeyError } from "./errors/reserved-env-key-error";
export { SessionInputError } from "./errors/session-input-error";
export { SessionOutputError } from "./errors/session-output-error";
// Harnesses and hooks
export type { AgentCommand, AgentHarness, HarnessContext } from "./harness/agent-harness";
export { createCommandHarness } from "./harness/create-command-harness";
export type { LifecycleHooks } from "./harness/lifecycle-hooks";
// Session input
export {
  type BuildSessionInputOptions,
  buildSessionInput,
  type SessionPrompt,
} from "./input/build-session-input";
export type { ImageSource } from "./input/image-source";
export { type SessionInput, sessionInputSchema } from "./input/session-input";
// Session output
export { parseSessionOutput } from "./output/parse-session-output";
export { readSessionOutput } from "./output/read-session-output";
export type {
  ExportRecord,
  ParsedSessionOutput,
  Reward,
  SessionOutput,
  SessionOutputWarning,
  TurnRewards,
} from "./output/session-output";
export type { AgentMounts, ProcessExit } from "./process/agent-process";
export { DEFAULT_AGENT_LOG_MAX_BYTES } from "./process/capped-log";
// Sandboxes
export { BwrapBackend, type BwrapBackendOptions, type BwrapNetwork } from "./sandbox/bwrap-backend";
export {
  type AgentNetwork,
  LocalProcessBackend,
  type LocalProcessBackendOptions,
  type LocalSandboxLayout,
  type LocalSupervision,
  SANDBOX_READ_MAX_BYTES,
} from "./sandbox/local-process-backend";
export { agentCommandPaths, preflightAgentCommand } from "./sandbox/preflight-agent-command";
export type {
  Sandbox,
  SandboxBackend,
  SandboxCreateOptions,
  SandboxProcess,
  SandboxSpawnSpec,
} from "./sandbox/sandbox-backend";
export { SESSION_ROOT_PREFIX, sweepStaleSessionRoots } from "./sandbox/session-folders";
export {
  type AllowedService,
  parseAllowedService,
  RELAY_FALLBACK_PORT,
} from "./sandbox/start-network-relay";
export { DEFAULT_UID_LEASE_DIR, UidLeaseHolder, type UidLockResult } from "./sandbox/uid-lease-holder";
export {
  type AgentIdentity,
  DEFAULT_AGENT_UID_RANGE,
  parseUidRange,
  UidPool,
  type UidPoolOptions,
  type UidRange,
} from "./sandbox/uid-pool";
export { agentUserName, type IdentityFiles, writeIdentityFiles } from "./sandbox/write-identity-files";
// Sessions
export type { AgentOutcome, AgentOutcomeBase } from "./session/agent-outcome";
export type { AgentSessionHandle, AgentSessionState } from "./session/agent-session-handle";
export {
  type LaunchAgentSessionOptions,
  launchAgentSession,
  runAgentTask,
} from "./session/launch-agent-session";
