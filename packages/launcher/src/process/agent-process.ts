/** How an agent process ended, as observed by its supervisor. */
export interface ProcessExit {
  /** Exit code of the agent (`bash -lc`), or `null` when a signal killed it. */
  exitCode: number | null;
  /** Signal that killed the agent, or `null`. */
  signal: NodeJS.Signals | null;
  /** Descendants still alive when the agent exited, terminated afterwards (daemons, stray children). */
  leftoverProcesses: number;
  /**
   * `true` when the supervisor confirmed that no descendant remains and every zombie was reaped;
   * `false` when that could not be established (the supervisor itself died, or the process-group
   * fallback ran, which cannot reap orphans).
   */
  reaped: boolean;
  /**
   * Set when the `relax-reaper` supervisor ended without reporting how the agent ended (it was killed,
   * e.g. by the OOM killer or a signal to its group): how the supervisor itself ended. `exitCode` and
   * `signal` are then what the supervisor had recorded, or both `null` (unknown, never a made-up signal).
   */
  supervisorLost?: { code: number | null; signal: NodeJS.Signals | null };
}

/** Options common to the ways of starting an agent process on this machine. */
export interface SpawnAgentProcessOptions {
  /** Shell command, run as `<shell> -lc <command>`. */
  command: string;
  /** Login shell used to run the command. @default "/bin/bash" */
  shell?: string | undefined;
  /** Working directory (must exist). */
  cwd: string;
  /** Complete environment of the agent. */
  env: Readonly<Record<string, string>>;
  /** File receiving stdout and stderr (appended; created when missing). */
  logPath: string;
  /** Milliseconds between SIGTERM and SIGKILL during termination and leftover cleanup. */
  graceMs: number;
  /** Environment entries identifying the session's processes for the `/proc` safety-net sweep. */
  markers: Readonly<Record<string, string>>;
  /**
   * Cap on the log file, head and tail kept (see `CappedLog`); stdout and stderr then go through pipes.
   * `0` or absent: the agent writes the file directly, without a cap.
   */
  logMaxBytes?: number;
  /** Run the agent under this uid and gid (supplementary groups dropped); needs root. */
  identity?: { uid: number; gid: number };
  /** Program and arguments put before `<shell> -lc <command>` (e.g. `bwrap … --`). */
  wrapper?: readonly string[] | undefined;
  /**
   * A private mount namespace for the agent, set up by `relax-reaper` as root before privileges are
   * dropped (ignored by the process-group fallback): files bound over `/etc/passwd` and `/etc/group`,
   * and folders made reachable by the agent's uid (each closed folder above them covered by a tmpfs
   * holding only the way down).
   */
  mounts?: AgentMounts;
}

/** See {@link SpawnAgentProcessOptions.mounts}. */
export interface AgentMounts {
  /** Bound read-only over `/etc/passwd`. */
  passwd?: string;
  /** Bound read-only over `/etc/group`. */
  group?: string;
  /** Absolute folders to make reachable (at most 16). */
  expose?: readonly string[];
  /** A new network namespace with only a loopback interface (`relax-reaper --unshare-net`). */
  unshareNet?: boolean;
  /** Absolute paths to hide (at most 64): a folder becomes empty, a file `/dev/null`; missing ones are skipped. */
  hide?: readonly string[];
}

/** The `relax-reaper` arguments of {@link AgentMounts}. */
export function mountArgs(mounts: AgentMounts | undefined): string[] {
  if (mounts === undefined) return [];
  return [
    ...(mounts.unshareNet === true ? ["--unshare-net"] : []),
    ...(mounts.passwd !== undefined ? ["--passwd", mounts.passwd] : []),
    ...(mounts.group !== undefined ? ["--group", mounts.group] : []),
    ...(mounts.expose ?? []).slice(0, 16).flatMap((path) => ["--expose", path]),
    ...(mounts.hide ?? []).slice(0, 64).flatMap((path) => ["--hide", path]),
  ];
}

/**
 * `[program, ...args]` of an agent: the wrapper (if any), then `<shell> -lc <command>`. With
 * `mergeStderr`, a `/bin/sh` trampoline first points stderr at stdout and then execs the rest (same
 * pid), so that both streams reach one pipe in the order they were written.
 */
export function agentArgv({
  wrapper = [],
  shell = "/bin/bash",
  command,
  mergeStderr = false,
}: Pick<SpawnAgentProcessOptions, "wrapper" | "shell" | "command"> & { mergeStderr?: boolean }): string[] {
  const argv = [...wrapper, shell, "-lc", command];
  return mergeStderr ? ["/bin/sh", "-c", 'exec 2>&1; exec "$0" "$@"', ...argv] : argv;
}

/** A running agent process on this machine. */
export interface AgentProcess {
  /** Pid of the agent (`bash -lc`), which is also its process group id and session id. */
  readonly pid: number;
  /** Pid of the `relax-reaper` supervisor, or `null` in process-group fallback mode. */
  readonly supervisorPid: number | null;
  /** Settles when the agent and all its descendants are gone; never rejects. */
  readonly exited: Promise<ProcessExit>;
  /**
   * Starts termination: SIGTERM to the whole tree, the grace period, then SIGKILL and reaping.
   * `force` skips the grace period. Idempotent; a second graceful call escalates like `force`.
   */
  terminate(options?: { force?: boolean }): void;
}
