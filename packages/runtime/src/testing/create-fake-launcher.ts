import type {
  AgentFailureKind,
  AgentOutcome,
  AgentSessionHandle,
  LaunchAgentSessionOptions,
  SessionInput,
  SessionOutput,
} from "@relax/launcher";
import { AgentExecutionError } from "@relax/launcher";
import type { LaunchAgent } from "../controller/run-group";

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
    const started = Date.now();
    const controller = new AbortController();
    let state: AgentSessionHandle["state"] = "running";
    let active = false;
    let settled: AgentOutcome | undefined;
    let resolveDone!: (outcome: AgentOutcome) => void;
    const done = new Promise<AgentOutcome>((resolve) => {
      resolveDone = resolve;
    });
    const label = launchOptions.sessionLabel ?? launchOptions.sessionId;
    const base = () => ({
      sessionId: label,
      exitCode: 0,
      signal: null,
      durationMs: Date.now() - started,
      activeMs: 0,
      logPath: "",
      leftoverProcesses: 0,
      reaped: true,
    });
    const settle = (outcome: AgentOutcome) => {
      if (settled !== undefined) return;
      settled = outcome;
      state = "exited";
      resolveDone(outcome);
    };
    const terminate = async (reason = "terminated") => {
      if (settled === undefined) {
        state = "terminating";
        controller.abort(new DOMException(reason, "AbortError"));
        settle({ ...base(), exitCode: null, signal: "SIGTERM", status: "terminated", reason });
      }
      return done;
    };
    const onRunAbort = () => void terminate("aborted");
    launchOptions.signal?.addEventListener("abort", onRunAbort, { once: true });
    void done.then(() => launchOptions.signal?.removeEventListener("abort", onRunAbort));
    const handle: AgentSessionHandle = {
      sessionId: label,
      pid: 0,
      logPath: "",
      ioDir: "",
      get state() {
        return state;
      },
      get active() {
        return active;
      },
      activeMs: 0,
      remainingMs: launchOptions.timeoutMs ?? 0,
      activate: () => {
        active = true;
      },
      pause: () => {
        active = false;
      },
      resume: () => {
        active = true;
      },
      terminate,
      done,
      readOutput: async () => {
        const outcome = await done;
        if (outcome.status !== "succeeded") throw new Error(`session ${outcome.sessionId} did not succeed`);
        return { output: outcome.output, warnings: outcome.warnings };
      },
    };
    handles.push(handle);
    const context: FakeAgentContext = {
      sessionId: launchOptions.sessionId,
      sessionLabel: label,
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
    options.agent(context).then(
      (result) => {
        if (result.status === "succeeded") {
          settle({
            ...base(),
            status: "succeeded",
            output: result.output ?? { kind: "implicit" },
            warnings: [],
          });
        } else {
          const error = new AgentExecutionError({
            sessionId: label,
            kind: result.kind,
            summary: result.message ?? `failed (${result.kind})`,
            exitCode: result.kind === "exit" ? 1 : null,
          });
          settle({ ...base(), exitCode: error.exitCode, status: "failed", error });
        }
      },
      (error: unknown) => {
        if (controller.signal.aborted) return; // terminated: already settled
        settle({
          ...base(),
          exitCode: 1,
          status: "failed",
          error: new AgentExecutionError({
            sessionId: label,
            kind: "exit",
            summary: `threw ${String(error)}`,
            exitCode: 1,
          }),
        });
      },
    );
    return handle;
  };
  return { launch, launched, handles };
}
