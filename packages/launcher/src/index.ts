/**
 * @module @relax/launcher
 * Per-session agent processes for Relax: the `RELAX_*` process contract, session input files, process
 * trees supervised by a child subreaper (`relax-reaper`), active-time timeouts, output parsing, and the
 * Agent Harness × Sandbox Backend interfaces with lifecycle hooks.
 */

// Configuration and the process contract
export {
  type AgentEnvInput,
  assertNoReservedEnvKeys,
  parseAgentEnv,
  RESERVED_ENV_PREFIX,
} from "./config/parse-agent-env";
export {
  type AgentProcessConfig,
  type AgentProcessConfigInput,
  DEFAULT_AGENT_TIMEOUT_MS,
  DEFAULT_TERMINATION_GRACE_MS,
  resolveAgentProcessConfig,
} from "./config/resolve-agent-process-config";
export {
  buildAgentEnv,
  buildContractEnv,
  COMMAND_LOG_FILE,
  RELAX_ENV,
  type RolloutMode,
  SESSION_INPUT_FILE,
  SESSION_OUTPUT_FILE,
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
export type { AgentCommand, AgentHarness, HarnessContext } from "./harness/agent-harness";
export { createCommandHarness } from "./harness/create-command-harness";
export type { LifecycleHooks } from "./harness/lifecycle-hooks";
// Session input
export {
  type BuildSessionInputOptions,
  buildSessionInput,
  IMAGE_PLACEHOLDER,
  type SessionPrompt,
} from "./input/build-session-input";
export { convertImageSource } from "./input/convert-image-source";
export type { ImageSource } from "./input/image-source";
export { type SessionInput, sessionInputSchema } from "./input/session-input";
export { imageMimeTypeForExtension, sniffImageMimeType } from "./input/sniff-image-mime-type";
// Session output
export { parseSessionOutput } from "./output/parse-session-output";
export { readSessionOutput } from "./output/read-session-output";
export type {
  ExportRecord,
  ParsedSessionOutput,
  Reward,
  SessionOutput,
  SessionOutputWarning,
} from "./output/session-output";
// Processes
export type { AgentProcess, ProcessExit, SpawnAgentProcessOptions } from "./process/agent-process";
export { listProcesses, type ProcessEntry, readProcessEnviron } from "./process/list-processes";
export { decodeUtf8Window, LOG_TAIL_BYTES, readLogTail } from "./process/read-log-tail";
export { compileReaper, resolveReaperBinary } from "./process/resolve-reaper-binary";
export { spawnProcessGroup } from "./process/spawn-process-group";
export { SpawnFailure, spawnSupervisedProcess } from "./process/spawn-supervised-process";
export {
  findSessionProcesses,
  type SessionProcessMatch,
  sweepSessionProcesses,
} from "./process/sweep-session-processes";
// Sandboxes, harnesses and hooks
export {
  LocalProcessBackend,
  type LocalProcessBackendOptions,
  type LocalSupervision,
} from "./sandbox/local-process-backend";
export type {
  Sandbox,
  SandboxBackend,
  SandboxCreateOptions,
  SandboxProcess,
  SandboxSpawnSpec,
} from "./sandbox/sandbox-backend";
// Sessions
export { ActiveTimer } from "./session/active-timer";
export type { AgentOutcome, AgentOutcomeBase } from "./session/agent-outcome";
export type { AgentSessionHandle, AgentSessionState } from "./session/agent-session-handle";
export {
  type LaunchAgentSessionOptions,
  launchAgentSession,
  runAgentTask,
} from "./session/launch-agent-session";
