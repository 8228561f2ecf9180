import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { buildAgentEnv, sessionIoPaths } from "../contract/agent-process-contract";
import { AgentConfigError } from "../errors/agent-config-error";
import { AgentExecutionError } from "../errors/agent-execution-error";
import { AgentTerminatedError } from "../errors/agent-terminated-error";
import { AgentTimeoutError } from "../errors/agent-timeout-error";
import { SessionOutputError } from "../errors/session-output-error";
import { SpawnFailure } from "../errors/spawn-failure";
import type { AgentCommand, HarnessContext } from "../harness/agent-harness";
import type { AgentOutcome, AgentOutcomeBase } from "../outcome/agent-outcome";
import { readSessionOutput } from "../output/read-session-output";
import type { ParsedSessionOutput } from "../output/session-output";
import type { ProcessExit } from "../process/agent-process";
import { readLogTail } from "../process/read-log-tail";
import type { Sandbox, SandboxBackend, SandboxProcess } from "../sandbox/sandbox-backend";
import { ActiveTimer } from "./active-timer";
import type { AgentSessionHandle, AgentSessionState } from "./agent-session-handle";
import type { LaunchSettings } from "./launch-settings";

/** Why a session is ending, once an end was requested: its budget ran out, or it was terminated. */
type SessionEnd = { kind: "timeout" } | { kind: "terminate"; reason: string };

/** How a finished process failed, before it becomes an {@link AgentExecutionError}. */
interface ProcessFailure {
  kind: "exit" | "signal" | "invalid-output";
  summary: string;
  cause?: unknown;
}

/**
 * One agent session, from its sandbox to its teardown. Its fields are the session's state (sandbox,
 * harness context, process, active-time budget, requested end); its methods are the phases:
 * {@link AgentSession.launch} creates the sandbox, `#prepare`s (input file, harness `prepare`, `beforeRun`
 * hooks, command), `#spawn`s the agent and `#supervise`s it until its process tree is gone; `#outcome`
 * reads how it ended (and its `RELAX_OUTPUT_JSON`); `#runOnError` and `#teardown` run the error hooks and
 * the cleanup. Callers see it through its {@link AgentSessionHandle}.
 */
export class AgentSession {
  readonly #settings: LaunchSettings;
  readonly #sandbox: Sandbox;
  /** What the harness and hooks see; its `signal` aborts when an end is requested. */
  readonly #context: HarnessContext;
  readonly #abort = new AbortController();
  /** The active-time budget; it expires into a `timeout` end. */
  readonly #timer: ActiveTimer;
  /** The log on the launcher's machine: the sandbox's, or `<logDir>/<label>.log`. */
  #logPath: string;
  /** The agent's process, set by `#spawn`. */
  #process!: SandboxProcess;
  /** When the agent was spawned (`performance.now()`). */
  #startedAt = 0;
  #state: AgentSessionState = "running";
  #end: SessionEnd | null = null;
  /** Settles once the process tree is gone, the outcome is read, hooks ran and the sandbox is released. */
  #done!: Promise<AgentOutcome>;

  private constructor(settings: LaunchSettings, sandbox: Sandbox) {
    this.#settings = settings;
    this.#sandbox = sandbox;
    this.#logPath = sandbox.logPath;
    this.#context = {
      ...settings.identity,
      sessionLabel: settings.label,
      sandbox,
      paths: sessionIoPaths(sandbox.ioDir),
      input: settings.input,
      agentEnv: settings.agentEnv,
      signal: this.#abort.signal,
    };
    this.#timer = new ActiveTimer({
      budgetMs: settings.timeoutMs,
      onExpire: () => this.#requestEnd({ kind: "timeout" }, false),
    });
  }

  /**
   * Creates the session's sandbox on `backend`, starts the agent in it and supervises it: resolves once the
   * process runs. On a failure before that, the `onError` hooks and the teardown run before it throws.
   * @throws {AgentExecutionError} (`kind: "launch"`) the process could not be started; otherwise what the
   * backend, the harness or a `beforeRun` hook threw.
   */
  static async launch(backend: SandboxBackend, settings: LaunchSettings): Promise<AgentSessionHandle> {
    const { label, signal } = settings;
    const sandbox = await backend.create({ sessionLabel: label, ...(signal ? { signal } : {}) });
    const session = new AgentSession(settings, sandbox);
    try {
      await session.#spawn(await session.#prepare());
    } catch (error) {
      throw await session.#abandon(error);
    }
    session.#supervise();
    return session.#handle();
  }

  /** Writes `RELAX_INPUT_JSON`, runs the harness's `prepare` and the `beforeRun` hooks, and returns the harness's command. */
  async #prepare(): Promise<AgentCommand> {
    const { harness, hooks } = this.#settings;
    const context = this.#context;
    await this.#sandbox.writeFile(context.paths.inputJson, `${JSON.stringify(context.input)}\n`);
    await harness.prepare?.(context);
    for (const hook of hooks) await hook.beforeRun?.(context);
    const agentCommand = await harness.command(context);
    if (typeof agentCommand.command !== "string" || agentCommand.command.trim() === "") {
      throw new AgentConfigError({
        path: "harness.command",
        message: `${harness.name} returned an empty command`,
      });
    }
    return agentCommand;
  }

  /** Starts `agentCommand` in the sandbox with the contract environment, its log in `logDir` when set. */
  async #spawn(agentCommand: AgentCommand): Promise<void> {
    const { agentEnv, identity, logDir, signal, cwd, graceMs, label } = this.#settings;
    const env = buildAgentEnv({
      agentEnv,
      harnessEnv: agentCommand.env,
      identity,
      paths: this.#context.paths,
    });
    if (logDir !== undefined) {
      const dir = resolve(logDir);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      this.#logPath = join(dir, `${label}.log`);
    }
    signal?.throwIfAborted();
    this.#startedAt = performance.now();
    this.#process = await this.#sandbox.spawn({
      command: agentCommand.command,
      cwd: agentCommand.cwd ?? cwd ?? this.#sandbox.defaultCwd,
      env,
      logPath: this.#logPath,
      graceMs,
    });
  }

  /**
   * The launch failed before the agent ran: runs the `onError` hooks and the teardown, and returns what to
   * throw (a spawn failure as `AgentExecutionError` kind `launch`, with the log tail; anything else as is).
   */
  async #abandon(error: unknown): Promise<unknown> {
    const failure = SpawnFailure.isInstance(error)
      ? new AgentExecutionError({
          sessionId: this.#settings.label,
          kind: "launch",
          summary: `could not be started (${error.message})`,
          logTail: await readLogTail(this.#logPath),
          cause: error,
        })
      : error;
    await this.#runOnError(failure);
    await this.#teardown();
    return failure;
  }

  /**
   * Watches the running agent: the `signal` terminates it, the budget counts from now when `active`, and
   * `#done` settles once its process tree is gone (never unhandled: infrastructure errors surface to
   * whoever awaits `done`).
   */
  #supervise(): void {
    this.#settings.signal?.addEventListener("abort", this.#onSignalAbort, { once: true });
    if (this.#settings.active) this.#timer.resume();
    this.#done = this.#awaitEnd();
    this.#done.catch(() => {});
  }

  /** The caller's `signal` aborted: terminate with reason `aborted[: <reason>]`. */
  readonly #onSignalAbort = (): void => {
    const reason = this.#settings.signal?.reason;
    this.#requestEnd({ kind: "terminate", reason: `aborted${reason ? `: ${String(reason)}` : ""}` }, false);
  };

  /** Waits for the process tree to be gone, reads the outcome, runs `afterRun` or `onError`, and always tears down. */
  async #awaitEnd(): Promise<AgentOutcome> {
    const exit = await this.#process.exited;
    this.#state = "exited";
    try {
      const outcome = await this.#finish(exit);
      if (outcome.status === "succeeded") {
        for (const hook of this.#settings.hooks) await hook.afterRun?.(this.#context, outcome);
      } else if (outcome.status === "failed") await this.#runOnError(outcome.error);
      return outcome;
    } catch (error) {
      await this.#runOnError(error);
      throw error;
    } finally {
      await this.#teardown();
    }
  }

  /** Stops the budget and the `signal` listener, and turns how the process ended into the outcome. */
  #finish(exit: ProcessExit): Promise<AgentOutcome> {
    this.#timer.stop();
    this.#settings.signal?.removeEventListener("abort", this.#onSignalAbort);
    return this.#outcome(exit, {
      sessionId: this.#settings.label,
      exitCode: exit.exitCode,
      signal: exit.signal,
      durationMs: performance.now() - this.#startedAt,
      activeMs: this.#timer.activeMs,
      logPath: this.#logPath,
      leftoverProcesses: exit.leftoverProcesses,
      reaped: exit.reaped,
    });
  }

  /**
   * How the agent process ended, as an outcome: terminated on request, failed (timeout, non-zero exit,
   * signal, a supervisor lost before it reported, invalid output) with the log tail, or succeeded with the
   * parsed output.
   * @throws what the harness's `parseResult` throws other than `SessionOutputError`
   */
  async #outcome(exit: ProcessExit, base: AgentOutcomeBase): Promise<AgentOutcome> {
    const end = this.#end;
    if (end?.kind === "terminate") return { ...base, status: "terminated", reason: end.reason };
    if (end?.kind === "timeout") {
      return {
        ...base,
        status: "failed",
        error: new AgentTimeoutError({
          sessionId: base.sessionId,
          timeoutMs: this.#settings.timeoutMs,
          activeMs: base.activeMs,
          exitCode: base.exitCode,
          signal: base.signal,
          durationMs: base.durationMs,
          logTail: await readLogTail(base.logPath),
        }),
      };
    }
    const failure = processFailure(exit);
    if (failure !== null) return failedOutcome(base, failure);
    let parsed: ParsedSessionOutput;
    try {
      parsed = await this.#readOutput(exit);
    } catch (error) {
      if (!SessionOutputError.isInstance(error)) throw error;
      const summary = `produced invalid output: ${error.message}`;
      return failedOutcome(base, { kind: "invalid-output", summary, cause: error });
    }
    return { ...base, status: "succeeded", output: parsed.output, warnings: parsed.warnings };
  }

  /** The output of a successful exit: the harness's `parseResult`, or `RELAX_OUTPUT_JSON` parsed. */
  async #readOutput(exit: ProcessExit): Promise<ParsedSessionOutput> {
    const { harness } = this.#settings;
    return harness.parseResult
      ? harness.parseResult(this.#context, exit)
      : readSessionOutput({ sandbox: this.#sandbox, path: this.#context.paths.outputJson });
  }

  /**
   * Ends the session (once): records why, stops the budget and aborts the harness's signal; then asks the
   * sandbox to kill the process tree (`force` skips the grace period; a second request may escalate).
   */
  #requestEnd(request: SessionEnd, force: boolean): void {
    if (this.#end === null) {
      this.#end = request;
      this.#state = "terminating";
      this.#timer.stop();
      this.#abort.abort(request.kind === "timeout" ? "timeout" : request.reason);
    }
    this.#sandbox.kill(this.#process, { force });
  }

  /** Runs every `onError` hook in order; a throwing one is only warned about. */
  async #runOnError(error: unknown): Promise<void> {
    const { hooks, warn, label } = this.#settings;
    for (const hook of hooks) {
      try {
        await hook.onError?.(this.#context, error);
      } catch (hookError) {
        warn(
          `@relax/launcher: onError hook ${hook.name ?? "(anonymous)"} failed for session ${label}`,
          hookError,
        );
      }
    }
  }

  /** Runs the harness's `cleanup` (a throw only warned about), then always destroys the sandbox. */
  async #teardown(): Promise<void> {
    const { harness, warn, label, keepIoDir } = this.#settings;
    try {
      await harness.cleanup?.(this.#context);
    } catch (error) {
      warn(`@relax/launcher: harness ${harness.name} cleanup failed for session ${label}`, error);
    } finally {
      await this.#sandbox.destroy({ keepIoDir });
    }
  }

  /** The {@link AgentSessionHandle} of this started session. */
  #handle(): AgentSessionHandle {
    const timer = this.#timer;
    const done = this.#done;
    const state = () => this.#state;
    return {
      sessionId: this.#settings.label,
      pid: this.#process.pid,
      logPath: this.#logPath,
      ioDir: this.#sandbox.ioDir,
      get state() {
        return state();
      },
      get active() {
        return timer.active;
      },
      get activeMs() {
        return timer.activeMs;
      },
      get remainingMs() {
        return timer.remainingMs;
      },
      activate: () => timer.resume(),
      pause: () => timer.pause(),
      resume: () => timer.resume(),
      terminate: (reason = "terminated", { force = false } = {}) => {
        if (state() !== "exited") this.#requestEnd({ kind: "terminate", reason }, force);
        return done;
      },
      done,
      readOutput: async () => {
        const outcome = await done;
        if (outcome.status === "succeeded") return { output: outcome.output, warnings: outcome.warnings };
        if (outcome.status === "failed") throw outcome.error;
        throw new AgentTerminatedError({ sessionId: outcome.sessionId, reason: outcome.reason });
      },
    };
  }
}

/** How a process that was not asked to end failed, from its exit; `null` for a clean exit (code 0). */
function processFailure(exit: ProcessExit): ProcessFailure | null {
  if (exit.exitCode === null && exit.signal === null && exit.supervisorLost !== undefined) {
    const { code, signal } = exit.supervisorLost;
    return {
      kind: "signal",
      summary: `ended unobserved: its supervisor relax-reaper ended (${signal ?? `code ${code}`}) before reporting how the agent ended; its processes were swept`,
    };
  }
  if (exit.signal === "SIGKILL") {
    // Not this launcher's (its terminations are reported as such): usually the kernel's OOM killer.
    return {
      kind: "signal",
      summary:
        "was killed by SIGKILL, which this gateway did not send (the kernel's OOM killer sends it: see `dmesg`; docs/security.md)",
    };
  }
  if (exit.exitCode === null)
    return { kind: "signal", summary: `was killed by ${exit.signal ?? "a signal"}` };
  if (exit.exitCode !== 0) return { kind: "exit", summary: `exited with code ${exit.exitCode}` };
  return null;
}

/** A `failed` outcome for `failure`, its error carrying the exit and the log tail. */
async function failedOutcome(base: AgentOutcomeBase, failure: ProcessFailure): Promise<AgentOutcome> {
  return {
    ...base,
    status: "failed",
    error: new AgentExecutionError({
      sessionId: base.sessionId,
      kind: failure.kind,
      summary: failure.summary,
      exitCode: base.exitCode,
      signal: base.signal,
      durationMs: base.durationMs,
      logTail: await readLogTail(base.logPath),
      cause: failure.cause,
    }),
  };
}
