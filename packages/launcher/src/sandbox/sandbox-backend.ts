import type { ProcessExit } from "../process/agent-process";

/**
 * Where agent sessions run: the local machine, a Docker container, an E2B sandbox... A backend only
 * creates sandboxes; everything else happens on the {@link Sandbox} it returns.
 * @see docs/contract.md#agent-harness
 */
export interface SandboxBackend {
  /** Short name for logs, e.g. `"local"`, `"docker"`, `"e2b"`. */
  readonly name: string;
  /**
   * Creates an isolated environment for one session, with an empty IO directory inside it.
   * Docker would `docker run -d --init` a container; E2B would `Sandbox.create()`.
   */
  create(options: SandboxCreateOptions): Promise<Sandbox>;
}

/** Options of {@link SandboxBackend.create}. */
export interface SandboxCreateOptions {
  /**
   * Non-secret label of the session (`[A-Za-z0-9_.-]{1,64}`), used in folder, container and log names.
   * The session id is a credential and must never appear in a name (docs/security.md#credentials).
   */
  sessionLabel: string;
  /** Aborts a slow creation. */
  signal?: AbortSignal;
}

/**
 * One session's environment. Paths are as seen from inside the sandbox (POSIX); the log file is on the
 * launcher's machine, so log tails work the same for every backend.
 */
export interface Sandbox {
  /** Backend-specific id (a directory for local, a container id for Docker, a sandbox id for E2B). */
  readonly id: string;
  /** The per-session IO directory (`RELAX_SESSION_IO_DIR`), inside the sandbox. */
  readonly ioDir: string;
  /** Default working directory for commands inside the sandbox, when the harness names none. */
  readonly defaultCwd: string;
  /** Where combined stdout+stderr is written by default, on the launcher's machine. */
  readonly logPath: string;
  /** Writes a file inside the sandbox (parent directories are created). */
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  /**
   * Reads a file inside the sandbox; `null` when it does not exist. The content is the agent's: a
   * backend must not follow a symbolic link planted in place of the file (local backends refuse it).
   */
  readFile(path: string): Promise<Uint8Array | null>;
  /**
   * Starts `bash -lc <command>` in a new process group, stdin from /dev/null, stdout+stderr appended to
   * `spec.logPath`. The env overlay is laid over the sandbox's base environment.
   */
  spawn(spec: SandboxSpawnSpec): Promise<SandboxProcess>;
  /**
   * Terminates a process and all its descendants: SIGTERM, `graceMs`, SIGKILL (immediately when
   * `force`), then reaping. Returns without waiting; `process.exited` settles when everything is gone.
   */
  kill(process: SandboxProcess, options?: { force?: boolean }): void;
  /**
   * Releases the sandbox: kills anything still running and removes the IO directory unless `keepIoDir`.
   * Idempotent, and must not throw for an already-destroyed sandbox.
   */
  destroy(options?: { keepIoDir?: boolean }): Promise<void>;
}

/** What to run inside a sandbox. */
export interface SandboxSpawnSpec {
  /** Shell command, run as `bash -lc <command>`. */
  command: string;
  /** Working directory inside the sandbox. */
  cwd: string;
  /** Variables laid over the sandbox's base environment (already validated, `RELAX_*` included). */
  env: Readonly<Record<string, string>>;
  /** File on the launcher's machine receiving combined stdout+stderr. */
  logPath: string;
  /** Milliseconds between SIGTERM and SIGKILL. */
  graceMs: number;
}

/** A process started by {@link Sandbox.spawn}. */
export interface SandboxProcess {
  /** Pid of the agent inside the sandbox (its process group id). */
  readonly pid: number;
  /** Settles once the agent and every descendant are gone; never rejects. */
  readonly exited: Promise<ProcessExit>;
}
