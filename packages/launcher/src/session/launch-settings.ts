import { randomBytes } from "node:crypto";
import { type AgentEnvInput, parseAgentEnv } from "../config/parse-agent-env";
import {
  DEFAULT_AGENT_TIMEOUT_MS,
  DEFAULT_TERMINATION_GRACE_MS,
} from "../config/resolve-agent-process-config";
import type { RolloutMode, SessionIdentity } from "../contract/agent-process-contract";
import { AgentConfigError } from "../errors/agent-config-error";
import { formatFieldPath } from "../errors/format-field-path";
import { SessionInputError } from "../errors/session-input-error";
import type { AgentHarness } from "../harness/agent-harness";
import { createCommandHarness } from "../harness/create-command-harness";
import type { LifecycleHooks } from "../harness/lifecycle-hooks";
import { type SessionInput, sessionInputSchema } from "../input/session-input";
import type { SandboxBackend } from "../sandbox/sandbox-backend";

/** Options of `launchAgentSession`. */
export interface LaunchAgentSessionOptions {
  /**
   * `RELAX_SESSION_ID`: unique per session, also the API credential. It reaches only the agent's
   * environment (and harnesses): never a file, folder or log name, nor an error message.
   */
  sessionId: string;
  /**
   * Non-secret name of the session (`[A-Za-z0-9_.-]{1,64}`, e.g. `g3-1-0a1b2c.s0`) used for the session
   * folder, the log file (`<logDir>/<label>.log`), errors, outcomes and warnings.
   * @default `session-<8 random hex digits>`
   */
  sessionLabel?: string;
  /** `RELAX_GROUP_ID`. */
  groupId: string;
  /** `RELAX_ROLLOUT_MODE`. */
  rolloutMode: RolloutMode;
  /** `RELAX_BASE_URL`. */
  baseUrl: string;
  /** `--agent-command` (run as `bash -lc`); required unless `harness` is given. */
  command?: string;
  /** `--agent-cwd`. @default the sandbox's default (the launcher's cwd for local processes) */
  cwd?: string;
  /** `--agent-env` (`KEY=VALUE` strings or a record; `RELAX_*` rejected). */
  agentEnv?: AgentEnvInput;
  /** `--agent-timeout` active-time budget in ms. @default 1_800_000 */
  timeoutMs?: number;
  /** SIGTERM → SIGKILL grace in ms. @default 5_000 */
  graceMs?: number;
  /** Content of `RELAX_INPUT_JSON` (see `buildSessionInput`). @default {} */
  input?: SessionInput;
  /** How to prepare, start and read the agent. @default the contract command harness for `command` */
  harness?: AgentHarness;
  /** Lifecycle hooks, run in this order. @default [] */
  hooks?: readonly LifecycleHooks[];
  /** Where the session runs. @default a shared `LocalProcessBackend` */
  backend?: SandboxBackend;
  /** Keep the IO directory after the session (debugging). @default false */
  keepIoDir?: boolean;
  /**
   * Write the log to `<logDir>/<sessionLabel>.log` (kept, mode 0600; the folder is created 0700) instead
   * of next to the session folder.
   */
  logDir?: string;
  /** Start with the budget running (no prelaunch wait). @default false */
  active?: boolean;
  /** Aborting it terminates the session (reason `aborted`). */
  signal?: AbortSignal;
  /** Receives non-fatal problems (a throwing `onError` hook or `cleanup`). @default console.warn */
  onWarning?: (message: string, cause?: unknown) => void;
}

/**
 * The validated settings of one launch: {@link LaunchAgentSessionOptions} with its defaults applied
 * (the backend aside, which the launch resolves itself).
 */
export interface LaunchSettings {
  /** The four identity variables of the contract (`RELAX_SESSION_ID`, `…_GROUP_ID`, `…_ROLLOUT_MODE`, `…_BASE_URL`). */
  identity: SessionIdentity;
  /** The non-secret session label. */
  label: string;
  /** The parsed `--agent-env`. */
  agentEnv: Record<string, string>;
  timeoutMs: number;
  graceMs: number;
  harness: AgentHarness;
  input: SessionInput;
  hooks: readonly LifecycleHooks[];
  /** Where non-fatal problems go. */
  warn: (message: string, cause?: unknown) => void;
  cwd: string | undefined;
  logDir: string | undefined;
  keepIoDir: boolean;
  active: boolean;
  signal: AbortSignal | undefined;
}

/**
 * Checks the options of one launch and applies their defaults; nothing runs yet.
 * @throws {AgentConfigError} bad identity, label, numbers, command or `agentEnv` (`ReservedEnvKeyError`).
 * @throws {SessionInputError} `input` is not `{messages?, metadata?}`.
 */
export function resolveLaunchSettings(options: LaunchAgentSessionOptions): LaunchSettings {
  const identity = validateIdentity(options);
  const label = options.sessionLabel ?? `session-${randomBytes(4).toString("hex")}`;
  if (typeof label !== "string" || !/^[A-Za-z0-9_.-]{1,64}$/.test(label)) {
    throw new AgentConfigError({
      path: "sessionLabel",
      message: "must be 1 to 64 characters of [A-Za-z0-9_.-]",
    });
  }
  const agentEnv = parseAgentEnv(options.agentEnv ?? [], { path: "agentEnv" });
  const timeoutMs = checkNumber(options.timeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS, "timeoutMs", {
    positive: true,
  });
  const graceMs = checkNumber(options.graceMs ?? DEFAULT_TERMINATION_GRACE_MS, "graceMs", {
    positive: false,
  });
  if (
    options.harness === undefined &&
    (typeof options.command !== "string" || options.command.trim() === "")
  ) {
    throw new AgentConfigError({
      path: "command",
      message: "a non-empty command (or a harness) is required",
    });
  }
  const harness = options.harness ?? createCommandHarness({ command: (options.command as string).trim() });
  const input = validateInput(options.input ?? {});
  return {
    identity,
    label,
    agentEnv,
    timeoutMs,
    graceMs,
    harness,
    input,
    hooks: options.hooks ?? [],
    warn: options.onWarning ?? ((message, cause) => console.warn(message, cause ?? "")),
    cwd: options.cwd,
    logDir: options.logDir,
    keepIoDir: options.keepIoDir ?? false,
    active: options.active ?? false,
    signal: options.signal,
  };
}

function validateIdentity(options: LaunchAgentSessionOptions): SessionIdentity {
  const { sessionId, groupId, rolloutMode, baseUrl } = options;
  if (typeof sessionId !== "string" || !/^[\x21-\x7e]+$/.test(sessionId)) {
    throw new AgentConfigError({
      path: "sessionId",
      message: "must be a non-empty printable ASCII string without spaces",
    });
  }
  if (typeof groupId !== "string" || groupId === "" || /[\0\n\r]/.test(groupId)) {
    throw new AgentConfigError({ path: "groupId", message: "must be a non-empty single-line string" });
  }
  if (rolloutMode !== "train" && rolloutMode !== "eval") {
    throw new AgentConfigError({
      path: "rolloutMode",
      message: `must be "train" or "eval", got ${JSON.stringify(rolloutMode)}`,
    });
  }
  if (typeof baseUrl !== "string" || baseUrl.trim() === "" || /[\0\n\r]/.test(baseUrl)) {
    throw new AgentConfigError({ path: "baseUrl", message: "must be a non-empty URL string" });
  }
  return { sessionId, groupId, rolloutMode, baseUrl };
}

function validateInput(input: unknown): SessionInput {
  const result = sessionInputSchema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = formatFieldPath(issue?.path ?? [], "input");
  throw new SessionInputError({
    path,
    message: issue?.message ?? "invalid session input",
    cause: result.error,
  });
}

function checkNumber(value: number, path: string, { positive }: { positive: boolean }): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || (positive && value === 0)) {
    throw new AgentConfigError({
      path,
      message: `must be a ${positive ? "positive" : "non-negative"} number, got ${value}`,
    });
  }
  return value;
}
