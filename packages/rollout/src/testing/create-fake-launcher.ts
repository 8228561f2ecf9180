import type {
  AgentFailureKind,
  AgentOutcome,
  AgentSessionHandle,
  LaunchAgentSessionOptions,
  SessionInput,
  SessionOutput,
} from "@relax/launcher";
import { AgentExecutionError } from "@relax/launcher";
import type { LaunchAgent } from "../group/run-group";

/** What an in-process fake agent sees: its `RELAX_*` identity, its input, and a fetch to the gateway. */
export interface FakeAgentContext {
  /** `RELAX_SESSION_ID`: the session's credential. */
  sessionId: string;
  /** The session's non-secret label (its id in rows, logs and turn events). */
  sessionLabel: string;
  groupId: string;
  rolloutMode: "train" | "eval";
  /** `RELAX_BASE_URL` (ends with `/`). */
  baseUrl: string;
  /** The session input (`RELAX_INPUT_JSON`). */
  input: SessionInput;
  /** Aborts when the controller terminates the session. */
  signal: AbortSignal;
  /** The handle: `active` tells whether the active-time budget runs. */
  handle: AgentSessionHandle;
  /** POSTs an OpenAI Chat Completions request to the gateway with the session id as credential. */
  chat(body: Record<string, unknown>): Promise<Response>;
}

/** How a fake agent ended: like a process exiting 0 with an output file, or failing. */
export type FakeAgentResult =
  | { status: "succeeded"; output?: SessionOutput }
  | { status: "failed"; kind: AgentFailureKind; message?: string };

/** Options of {@link createFakeLauncher}. */
export interface FakeLauncherOptions {
  /** The agent's behaviour, run once per launched session. */
  agent: (context: FakeAgentContext) => Promise<FakeAgentResult>;
  /** How requests reach the gateway. @default globalThis.fetch */
  fetch?: (request: Request) => Promise<Response>;
  /** Make the launch itself fail (like a command that cannot start) for some sessions. */
  failLaunch?: (options: LaunchAgentSessionOptions) => Error | undefined;
}

/** The fake launcher, with what it launched for assertions. */
export interface FakeLauncher {
  launch: LaunchAgent;
  launched: LaunchAgentSessionOptions[];
  handles: AgentSessionHandle[];
}

/**
 * A {@link LaunchAgent} that runs agents in process, for unit tests of Groups and the controller: each
 * launched session runs `agent(context)` at once (its requests are held at the first-request barrier
 * like a real agent's), and its handle follows `AgentSessionHandle` of `@relax/launcher`: the budget
 * starts paused, `terminate()` aborts the agent's signal and resolves `done` as `terminated`.
 */
export function createFakeLauncher(options: FakeLauncherOptions): FakeLauncher {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const launched: LaunchAgentSessionOptions[] = [];
  const handles: AgentSessionHandle[] = [];
  const launch: LaunchAgent = async (launchOptions) => {
    launched.push(launchOptions);
    const error = options.failLaunch?.(launchOptions);
    if (error !== undefined) throw error;
    const run = new FakeAgentRun(launchOptions);
    const handle = run.createHandle();
    handles.push(handle);
    options.agent(run.createContext(handle, send)).then(
      (result) => run.finish(result),
      (agentError: unknown) => run.fail(agentError),
    );
    return handle;
  };
  return { launch, launched, handles };
}

/**
 * One launched fake agent: its abort controller, handle state and outcome. The outcome settles once —
 * from the agent's result, its throw, or `terminate` (the run's `signal` aborting terminates it too).
 */
export class FakeAgentRun {
  readonly controller = new AbortController();
  readonly done: Promise<AgentOutcome>;
  /** The session's non-secret label (`sessionLabel`, else the credential). */
  readonly label: string;
  state: AgentSessionHandle["state"] = "running";
  active = false;
  #settled: AgentOutcome | undefined;
  #resolveDone!: (outcome: AgentOutcome) => void;
  readonly #started = Date.now();

  constructor(readonly launchOptions: LaunchAgentSessionOptions) {
    this.label = launchOptions.sessionLabel ?? launchOptions.sessionId;
    this.done = new Promise<AgentOutcome>((resolve) => {
      this.#resolveDone = resolve;
    });
    const onRunAbort = () => void this.terminate("aborted");
    launchOptions.signal?.addEventListener("abort", onRunAbort, { once: true });
    void this.done.then(() => launchOptions.signal?.removeEventListener("abort", onRunAbort));
  }

  /** The fields every outcome shares (exit code 0, no signal, the duration so far). */
  #base() {
    return {
      sessionId: this.label,
      exitCode: 0,
      signal: null,
      durationMs: Date.now() - this.#started,
      activeMs: 0,
      logPath: "",
      leftoverProcesses: 0,
      reaped: true,
    };
  }

  #settle(outcome: AgentOutcome): void {
    if (this.#settled !== undefined) return;
    this.#settled = outcome;
    this.state = "exited";
    this.#resolveDone(outcome);
  }

  /** Aborts the agent's signal and settles `terminated` (SIGTERM) unless already settled; resolves `done`. */
  terminate = async (reason = "terminated"): Promise<AgentOutcome> => {
    if (this.#settled === undefined) {
      this.state = "terminating";
      this.controller.abort(new DOMException(reason, "AbortError"));
      this.#settle({ ...this.#base(), exitCode: null, signal: "SIGTERM", status: "terminated", reason });
    }
    return this.done;
  };

  /** Settles from the agent's result: `succeeded` (implicit output by default) or an {@link AgentExecutionError}. */
  finish(result: FakeAgentResult): void {
    if (result.status === "succeeded") {
      this.#settle({
        ...this.#base(),
        status: "succeeded",
        output: result.output ?? { kind: "implicit" },
        warnings: [],
      });
      return;
    }
    const error = new AgentExecutionError({
      sessionId: this.label,
      kind: result.kind,
      summary: result.message ?? `failed (${result.kind})`,
      exitCode: result.kind === "exit" ? 1 : null,
    });
    this.#settle({ ...this.#base(), exitCode: error.exitCode, status: "failed", error });
  }

  /** Settles from the agent's throw as an `exit` failure (exit code 1); ignored once terminated. */
  fail(error: unknown): void {
    if (this.controller.signal.aborted) return; // terminated: already settled
    this.#settle({
      ...this.#base(),
      exitCode: 1,
      status: "failed",
      error: new AgentExecutionError({
        sessionId: this.label,
        kind: "exit",
        summary: `threw ${String(error)}`,
        exitCode: 1,
      }),
    });
  }

  /** The session's `AgentSessionHandle` (its `state` and `active` read this run's). */
  createHandle(): AgentSessionHandle {
    const run = this;
    const { done } = this;
    return {
      sessionId: this.label,
      pid: 0,
      logPath: "",
      ioDir: "",
      get state() {
        return run.state;
      },
      get active() {
        return run.active;
      },
      activeMs: 0,
      remainingMs: this.launchOptions.timeoutMs ?? 0,
      activate: () => {
        run.active = true;
      },
      pause: () => {
        run.active = false;
      },
      resume: () => {
        run.active = true;
      },
      terminate: this.terminate,
      done,
      readOutput: async () => {
        const outcome = await done;
        if (outcome.status !== "succeeded") throw new Error(`session ${outcome.sessionId} did not succeed`);
        return { output: outcome.output, warnings: outcome.warnings };
      },
    };
  }

  /** What the agent sees; `chat` POSTs to `<baseUrl>chat/completions` with the credential as Bearer. */
  createContext(handle: AgentSessionHandle, send: (request: Request) => Promise<Response>): FakeAgentContext {
    const { launchOptions, controller } = this;
    return {
      sessionId: launchOptions.sessionId,
      sessionLabel: this.label,
      groupId: launchOptions.groupId,
      rolloutMode: launchOptions.rolloutMode,
      baseUrl: launchOptions.baseUrl,
      input: launchOptions.input ?? {},
      signal: controller.signal,
      handle,
      chat: (body) =>
        send(
          new Request(new URL("chat/completions", launchOptions.baseUrl), {
            method: "POST",
            headers: {
              authorization: `Bearer ${launchOptions.sessionId}`,
              "content-type": "application/json",
            },
            body: JSON.stringify(body),
            signal: controller.signal,
          }),
        ),
    };
  }
}
