import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type AgentEnvInput, parseAgentEnv } from "../config/parse-agent-env";
import {
  DEFAULT_AGENT_TIMEOUT_MS,
  DEFAULT_TERMINATION_GRACE_MS,
} from "../config/resolve-agent-process-config";
import { buildAgentEnv, type RolloutMode, sessionIoPaths } from "../contract/agent-process-contract";
import { AgentConfigError } from "../errors/agent-config-error";
import { AgentExecutionError } from "../errors/agent-execution-error";
import { AgentTerminatedError } from "../errors/agent-terminated-error";
import { AgentTimeoutError } from "../errors/agent-timeout-error";
import { formatFieldPath } from "../errors/format-field-path";
import { SessionInputError } from "../errors/session-input-error";
import { SessionOutputError } from "../errors/session-output-error";
import { SpawnFailure } from "../errors/spawn-failure";
import type { AgentHarness, HarnessContext } from "../harness/agent-harness";
import { createCommandHarness } from "../harness/create-command-harness";
import type { LifecycleHooks } from "../harness/lifecycle-hooks";
import { type SessionInput, sessionInputSchema } from "../input/session-input";
import { readSessionOutput } from "../output/read-session-output";
import type { ParsedSessionOutput } from "../output/session-output";
import type { ProcessExit } from "../process/agent-process";
import { readLogTail } from "../process/read-log-tail";
import { LocalProcessBackend } from "../sandbox/local-process-backend";
import type { Sandbox, SandboxBackend, SandboxProcess } from "../sandbox/sandbox-backend";
import { ActiveTimer } from "./active-timer";
import type { AgentOutcome, AgentOutcomeBase } from "./agent-outcome";
import type { AgentSessionHandle, AgentSessionState } from "./agent-session-handle";

/** Options of {@link launchAgentSession}. */
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

let defaultBackend: LocalProcessBackend | undefined;

function sharedLocalBackend(): LocalProcessBackend {
  if (defaultBackend === undefined) defaultBackend = new LocalProcessBackend();
  return defaultBackend;
}

/**
 * Launches one agent session: creates the sandbox and IO directory, writes `RELAX_INPUT_JSON`, runs the
 * harness's `prepare` and the `beforeRun` hooks, then starts `bash -lc <command>` in a new process group
 * with the `RELAX_*` contract environment and stdout+stderr to the session log. Resolves once the process
 * runs; `handle.done` reports how it ended. Cleanup (harness `cleanup`, sandbox `destroy`, IO directory
 * removal unless `keepIoDir`) always runs, on every path.
 *
 * @example
 * const session = await launchAgentSession({ sessionId, groupId, rolloutMode: "train", baseUrl,
 *   command: "python -m my_agent", cwd: "/srv/agent", input: { messages } });
 * session.activate(); // the Group got its Runtime lease
 * const outcome = await session.done; // status: succeeded | failed | terminated
 *
 * @throws {AgentConfigError} bad options (`ReservedEnvKeyError` for `RELAX_*` keys), before anything runs.
 * @throws {SessionInputError} `input` is not `{messages?, metadata?}`.
 * @throws {AgentExecutionError} (`kind: "launch"`) the shell could not be started.
 * @throws {ReaperUnavailableError} no `relax-reaper` binary and no fallback allowed.
 * Errors from the backend, harness or `beforeRun` hooks propagate unchanged (after `onError` and cleanup).
 * @see docs/contract.md#agent-process-contract, docs/contract.md#agent-harness
 */
export async function launchAgentSession(options: LaunchAgentSessionOptions): Promise<AgentSessionHandle> {
  const { identity, label, agentEnv, timeoutMs, graceMs, harness, input, hooks, warn } =
    resolveLaunchSettings(options);
  options.signal?.throwIfAborted();

  const backend = options.backend ?? sharedLocalBackend();
  const sandbox = await backend.create({
    sessionLabel: label,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const paths = sessionIoPaths(sandbox.ioDir);
  const controller = new AbortController();
  const context: HarnessContext = {
    ...identity,
    sessionLabel: label,
    sandbox,
    paths,
    input,
    agentEnv,
    signal: controller.signal,
  };

  const { runOnError, cleanup } = sessionCleanup({
    hooks,
    harness,
    sandbox,
    context,
    label,
    warn,
    keepIoDir: options.keepIoDir ?? false,
  });

  const { agentProcess, logPath, startedAt } = await startAgentProcess({
    options,
    sandbox,
    harness,
    hooks,
    context,
    identity,
    paths,
    agentEnv,
    graceMs,
    label,
    runOnError,
    cleanup,
  });

  let state: AgentSessionState = "running";
  let end: { kind: "timeout" } | { kind: "terminate"; reason: string } | null = null;
  const requestEnd = (request: NonNullable<typeof end>, force: boolean) => {
    if (end === null) {
      end = request;
      state = "terminating";
      timer.stop();
      controller.abort(request.kind === "timeout" ? "timeout" : request.reason);
    }
    sandbox.kill(agentProcess, { force });
  };
  const timer = new ActiveTimer({
    budgetMs: timeoutMs,
    onExpire: () => requestEnd({ kind: "timeout" }, false),
  });
  const onAbort = () =>
    requestEnd(
      {
        kind: "terminate",
        reason: `aborted${options.signal?.reason ? `: ${String(options.signal.reason)}` : ""}`,
      },
      false,
    );
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.active) timer.resume();

  const finish = (exit: ProcessExit): Promise<AgentOutcome> => {
    timer.stop();
    options.signal?.removeEventListener("abort", onAbort);
    const base: AgentOutcomeBase = {
      sessionId: label,
      exitCode: exit.exitCode,
      signal: exit.signal,
      durationMs: performance.now() - startedAt,
      activeMs: timer.activeMs,
      logPath,
      leftoverProcesses: exit.leftoverProcesses,
      reaped: exit.reaped,
    };
    return outcomeOf({ exit, base, end, timeoutMs, harness, context, sandbox, paths });
  };

  const done = (async (): Promise<AgentOutcome> => {
    const exit = await agentProcess.exited;
    state = "exited";
    try {
      const outcome = await finish(exit);
      if (outcome.status === "succeeded") for (const hook of hooks) await hook.afterRun?.(context, outcome);
      else if (outcome.status === "failed") await runOnError(outcome.error);
      return outcome;
    } catch (error) {
      await runOnError(error);
      throw error;
    } finally {
      await cleanup();
    }
  })();
  done.catch(() => {}); // infrastructure errors surface to whoever awaits `done`; never unhandled

  return sessionHandle({
    label,
    agentProcess,
    logPath,
    ioDir: sandbox.ioDir,
    timer,
    done,
    state: () => state,
    terminate: (reason, force) => requestEnd({ kind: "terminate", reason }, force),
  });
}

/** The {@link AgentSessionHandle} of a started session, over its timer, its `done` promise and its end request. */
function sessionHandle(session: {
  label: string;
  agentProcess: SandboxProcess;
  logPath: string;
  ioDir: string;
  timer: ActiveTimer;
  done: Promise<AgentOutcome>;
  state: () => AgentSessionState;
  terminate: (reason: string, force: boolean) => void;
}): AgentSessionHandle {
  return {
    sessionId: session.label,
    pid: session.agentProcess.pid,
    logPath: session.logPath,
    ioDir: session.ioDir,
    get state() {
      return session.state();
    },
    get active() {
      return session.timer.active;
    },
    get activeMs() {
      return session.timer.activeMs;
    },
    get remainingMs() {
      return session.timer.remainingMs;
    },
    activate: () => session.timer.resume(),
    pause: () => session.timer.pause(),
    resume: () => session.timer.resume(),
    terminate(reason = "terminated", { force = false } = {}) {
      if (session.state() !== "exited") session.terminate(reason, force);
      return session.done;
    },
    done: session.done,
    async readOutput() {
      const outcome = await session.done;
      if (outcome.status === "succeeded") return { output: outcome.output, warnings: outcome.warnings };
      if (outcome.status === "failed") throw outcome.error;
      throw new AgentTerminatedError({ sessionId: outcome.sessionId, reason: outcome.reason });
    },
  };
}

/**
 * The two ways a session ends its resources: `runOnError` (every `onError` hook, a failing one only warned)
 * and `cleanup` (harness `cleanup`, then the sandbox destroyed, always).
 */
function sessionCleanup(session: {
  hooks: readonly LifecycleHooks[];
  harness: AgentHarness;
  sandbox: Sandbox;
  context: HarnessContext;
  label: string;
  warn: (message: string, cause?: unknown) => void;
  keepIoDir: boolean;
}): { runOnError: (error: unknown) => Promise<void>; cleanup: () => Promise<void> } {
  const { hooks, harness, sandbox, context, label, warn } = session;
  return {
    runOnError: async (error: unknown) => {
      for (const hook of hooks) {
        try {
          await hook.onError?.(context, error);
        } catch (hookError) {
          warn(
            `@relax/launcher: onError hook ${hook.name ?? "(anonymous)"} failed for session ${label}`,
            hookError,
          );
        }
      }
    },
    cleanup: async () => {
      try {
        await harness.cleanup?.(context);
      } catch (error) {
        warn(`@relax/launcher: harness ${harness.name} cleanup failed for session ${label}`, error);
      } finally {
        await sandbox.destroy({ keepIoDir: session.keepIoDir });
      }
    },
  };
}

/** The validated settings of one launch (see {@link launchAgentSession}'s `@throws`). */
function resolveLaunchSettings(options: LaunchAgentSessionOptions) {
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
  const hooks = options.hooks ?? [];
  const warn =
    options.onWarning ?? ((message: string, cause?: unknown) => console.warn(message, cause ?? ""));
  return { identity, label, agentEnv, timeoutMs, graceMs, harness, input, hooks, warn };
}

/**
 * Writes the session input, runs `prepare` and the `beforeRun` hooks, and spawns the agent command in the
 * sandbox. On any failure `onError` hooks and cleanup run before it throws (a spawn failure as
 * `AgentExecutionError` kind `launch`, with the log tail).
 */
async function startAgentProcess(launch: {
  options: LaunchAgentSessionOptions;
  sandbox: Sandbox;
  harness: AgentHarness;
  hooks: readonly LifecycleHooks[];
  context: HarnessContext;
  identity: ReturnType<typeof validateIdentity>;
  paths: ReturnType<typeof sessionIoPaths>;
  agentEnv: ReturnType<typeof parseAgentEnv>;
  graceMs: number;
  label: string;
  runOnError: (error: unknown) => Promise<void>;
  cleanup: () => Promise<void>;
}): Promise<{ agentProcess: SandboxProcess; logPath: string; startedAt: number }> {
  const { options, sandbox, harness, hooks, context, identity, paths, agentEnv, graceMs, label } = launch;
  let logPath = sandbox.logPath;
  try {
    await sandbox.writeFile(paths.inputJson, `${JSON.stringify(context.input)}\n`);
    await harness.prepare?.(context);
    for (const hook of hooks) await hook.beforeRun?.(context);
    const agentCommand = await harness.command(context);
    if (typeof agentCommand.command !== "string" || agentCommand.command.trim() === "") {
      throw new AgentConfigError({
        path: "harness.command",
        message: `${harness.name} returned an empty command`,
      });
    }
    const env = buildAgentEnv({ agentEnv, harnessEnv: agentCommand.env, identity, paths });
    if (options.logDir !== undefined) {
      const logDir = resolve(options.logDir);
      await mkdir(logDir, { recursive: true, mode: 0o700 });
      logPath = join(logDir, `${label}.log`);
    }
    options.signal?.throwIfAborted();
    const startedAt = performance.now();
    const agentProcess = await sandbox.spawn({
      command: agentCommand.command,
      cwd: agentCommand.cwd ?? options.cwd ?? sandbox.defaultCwd,
      env,
      logPath,
      graceMs,
    });
    return { agentProcess, logPath, startedAt };
  } catch (error) {
    const failure = SpawnFailure.isInstance(error)
      ? new AgentExecutionError({
          sessionId: label,
          kind: "launch",
          summary: `could not be started (${error.message})`,
          logTail: await readLogTail(logPath),
          cause: error,
        })
      : error;
    await launch.runOnError(failure);
    await launch.cleanup();
    throw failure;
  }
}

/**
 * How an agent process ended, as an outcome: terminated on request, failed (timeout, non-zero exit, signal,
 * a supervisor lost before it reported, invalid output) with the log tail, or succeeded with the parsed
 * `RELAX_OUTPUT_JSON`.
 * @throws what the harness's `parseResult` throws other than `SessionOutputError`
 */
async function outcomeOf(ending: {
  exit: ProcessExit;
  base: AgentOutcomeBase;
  end: { kind: "timeout" } | { kind: "terminate"; reason: string } | null;
  timeoutMs: number;
  harness: AgentHarness;
  context: HarnessContext;
  sandbox: Sandbox;
  paths: ReturnType<typeof sessionIoPaths>;
}): Promise<AgentOutcome> {
  const { exit, base, end, timeoutMs, harness, context, sandbox, paths } = ending;
  const label = base.sessionId;
  const logPath = base.logPath;
  const failed = async (
    kind: "exit" | "signal" | "invalid-output",
    summary: string,
    cause?: unknown,
  ): Promise<AgentOutcome> => ({
    ...base,
    status: "failed",
    error: new AgentExecutionError({
      sessionId: label,
      kind,
      summary,
      exitCode: exit.exitCode,
      signal: exit.signal,
      durationMs: base.durationMs,
      logTail: await readLogTail(logPath),
      cause,
    }),
  });
  const ended = end;
  if (ended?.kind === "terminate") return { ...base, status: "terminated", reason: ended.reason };
  if (ended?.kind === "timeout") {
    return {
      ...base,
      status: "failed",
      error: new AgentTimeoutError({
        sessionId: label,
        timeoutMs,
        activeMs: base.activeMs,
        exitCode: exit.exitCode,
        signal: exit.signal,
        durationMs: base.durationMs,
        logTail: await readLogTail(logPath),
      }),
    };
  }
  if (exit.exitCode === null && exit.signal === null && exit.supervisorLost !== undefined) {
    const { code, signal } = exit.supervisorLost;
    return failed(
      "signal",
      `ended unobserved: its supervisor relax-reaper ended (${signal ?? `code ${code}`}) before reporting how the agent ended; its processes were swept`,
    );
  }
  if (exit.signal === "SIGKILL") {
    // Not this launcher's (its terminations are reported as such): usually the kernel's OOM killer.
    return failed(
      "signal",
      "was killed by SIGKILL, which this gateway did not send (the kernel's OOM killer sends it: see `dmesg`; docs/security.md)",
    );
  }
  if (exit.exitCode === null) return failed("signal", `was killed by ${exit.signal ?? "a signal"}`);
  if (exit.exitCode !== 0) return failed("exit", `exited with code ${exit.exitCode}`);
  let parsed: ParsedSessionOutput;
  try {
    parsed = harness.parseResult
      ? await harness.parseResult(context, exit)
      : await readSessionOutput({ sandbox, path: paths.outputJson });
  } catch (error) {
    if (!SessionOutputError.isInstance(error)) throw error;
    return failed("invalid-output", `produced invalid output: ${error.message}`, error);
  }
  return { ...base, status: "succeeded", output: parsed.output, warnings: parsed.warnings };
}

/**
 * Launches a session with its budget active from the start and waits for it: the one-shot runner
 * (`prepare → beforeRun → command → afterRun / onError → cleanup`, docs/contract.md#agent-harness).
 *
 * @returns the outcome (`succeeded`, `failed` or `terminated`).
 * @throws as {@link launchAgentSession}, plus infrastructure errors from hooks and harness.
 */
export async function runAgentTask(options: LaunchAgentSessionOptions): Promise<AgentOutcome> {
  const handle = await launchAgentSession({ ...options, active: options.active ?? true });
  return handle.done;
}

function validateIdentity(options: LaunchAgentSessionOptions) {
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
