/**
 * @module @relax/launcher
 * Per-session agent processes for Relax: the `RELAX_*` process contract, session input files, process
 * trees supervised by a child subreaper (`relax-reaper`), active-time timeouts, output parsing, and the
 * Agent Harness × Sandbox Backend interfaces with lifecycle hooks.
 *
 * This file is the public contract, what a consumer composes with: launching sessions, the agent
 * environment policy, session input and output, the sandbox backends and the harness / sandbox / hook
 * interfaces, and the typed errors. The building blocks behind them (the contract's paths and env layering,
 * output parsing, option types of the backends, session-folder sweeping) are in `@relax/launcher/internal`
 * (unstable); process-level pieces (supervised spawning, `/proc` scans, log tails, the active timer) are not
 * exported.
 */

// The agent environment
export { findSecretLookingNames, parseAgentEnvInherit, selectInheritedEnv } from "./config/agent-env-policy";
export { parseAgentEnv } from "./config/parse-agent-env";
export { RELAX_ENV } from "./contract/agent-process-contract";
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
export type { LifecycleHooks } from "./harness/lifecycle-hooks";
// Session input and output
export { buildSessionInput } from "./input/build-session-input";
export type { SessionInput } from "./input/session-input";
// Sessions
export type { AgentOutcome } from "./outcome/agent-outcome";
export type { SessionOutput } from "./output/session-output";
// Sandboxes
export { BwrapBackend } from "./sandbox/bwrap-backend";
export { LocalProcessBackend, type LocalProcessBackendOptions } from "./sandbox/local-process-backend";
export { preflightAgentCommand } from "./sandbox/preflight-agent-command";
export type { Sandbox, SandboxBackend, SandboxProcess } from "./sandbox/sandbox-backend";
export { parseAllowedService } from "./sandbox/start-network-relay";
export { DEFAULT_AGENT_UID_RANGE, parseUidRange, UidPool } from "./sandbox/uid-pool";
export type { AgentSessionHandle } from "./session/agent-session-handle";
export {
  type LaunchAgentSessionOptions,
  launchAgentSession,
  runAgentTask,
} from "./session/launch-agent-session";
