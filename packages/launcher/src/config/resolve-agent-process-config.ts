import { statSync } from "node:fs";
import { resolve } from "node:path";
import { AgentConfigError } from "../errors/agent-config-error";
import { type AgentEnvInput, parseAgentEnv } from "./parse-agent-env";

/** Default active-time budget (`--agent-timeout 1800`; see docs/contract.md#agent-process-contract). */
export const DEFAULT_AGENT_TIMEOUT_MS = 1_800_000;
/** Default SIGTERM → SIGKILL grace period (5 s; see docs/contract.md#agent-process-contract). */
export const DEFAULT_TERMINATION_GRACE_MS = 5_000;

/** The user-facing agent process settings (`--agent-command`, `--agent-cwd`, `--agent-env`, `--agent-timeout`). */
export interface AgentProcessConfigInput {
  /** Shell command run as `bash -lc <command>` (`--agent-command`); surrounding whitespace is trimmed. */
  command: string;
  /** Working directory (`--agent-cwd`); resolved to an absolute path. @default process.cwd() */
  cwd?: string;
  /** Extra environment (`--agent-env KEY=VALUE...`); `RELAX_*` keys are rejected. */
  env?: AgentEnvInput;
  /** Active-time budget in milliseconds (`--agent-timeout`, seconds on the CLI). @default 1_800_000 */
  timeoutMs?: number;
  /** Milliseconds between SIGTERM and SIGKILL when terminating. @default 5_000 */
  graceMs?: number;
}

/** Validated, normalised agent process settings. */
export interface AgentProcessConfig {
  command: string;
  /** Absolute path of an existing directory. */
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  graceMs: number;
}

/**
 * Validates the agent process settings at configuration time, before any session starts: the command is
 * non-empty, the cwd exists and is a directory, env settings are `KEY=VALUE` outside `RELAX_*`, the timeout
 * is a positive finite number and the grace period non-negative.
 *
 * @throws {AgentConfigError} naming the field (`command`, `cwd`, `env[i]`, `timeoutMs`, `graceMs`).
 * @throws {ReservedEnvKeyError} for a `RELAX_*` key in `env`.
 */
export function resolveAgentProcessConfig(input: AgentProcessConfigInput): AgentProcessConfig {
  if (typeof input.command !== "string" || input.command.trim() === "") {
    throw new AgentConfigError({ path: "command", message: "the agent command must be a non-empty string" });
  }
  const cwd = resolve(input.cwd ?? process.cwd());
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch (error) {
    throw new AgentConfigError({ path: "cwd", message: `${cwd} does not exist`, cause: error });
  }
  if (!isDirectory) throw new AgentConfigError({ path: "cwd", message: `${cwd} is not a directory` });
  const timeoutMs = input.timeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS;
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new AgentConfigError({ path: "timeoutMs", message: `must be a positive number, got ${timeoutMs}` });
  }
  const graceMs = input.graceMs ?? DEFAULT_TERMINATION_GRACE_MS;
  if (typeof graceMs !== "number" || !Number.isFinite(graceMs) || graceMs < 0) {
    throw new AgentConfigError({ path: "graceMs", message: `must be a non-negative number, got ${graceMs}` });
  }
  return {
    command: input.command.trim(),
    cwd,
    env: parseAgentEnv(input.env ?? [], { path: "env" }),
    timeoutMs,
    graceMs,
  };
}
