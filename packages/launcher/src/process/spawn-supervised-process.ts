import { spawn } from "node:child_process";
import { open } from "node:fs/promises";
import { constants } from "node:os";
import type { Readable } from "node:stream";
import { SpawnFailure } from "../errors/spawn-failure";
import {
  type AgentProcess,
  agentArgv,
  mountArgs,
  type ProcessExit,
  type SpawnAgentProcessOptions,
} from "./agent-process";
import { CappedLog } from "./capped-log";
import { signalName } from "./signal-name";
import { sweepSessionProcesses } from "./sweep-session-processes";

export { SpawnFailure } from "../errors/spawn-failure";

/**
 * Starts `<shell> -lc <command>` under the `relax-reaper` supervisor: the agent gets a new session (and
 * process group), stdin from /dev/null and stdout+stderr appended to `logPath`; every descendant is
 * re-parented to the supervisor and reaped, whatever it does (double fork, `setsid`, ignoring SIGTERM).
 * If the supervisor dies without confirming cleanup, a `/proc` sweep for the session markers kills what
 * is left.
 *
 * @returns once the agent has been exec'd.
 * @throws {SpawnFailure} when the supervisor or the shell cannot be started.
 */
export async function spawnSupervisedProcess({
  reaperPath,
  command,
  shell = "/bin/bash",
  cwd,
  env,
  logPath,
  graceMs,
  markers,
  logMaxBytes = 0,
  identity,
  wrapper,
  mounts,
}: SpawnAgentProcessOptions & { reaperPath: string }): Promise<AgentProcess> {
  const capped = logMaxBytes > 0 ? await CappedLog.open(logPath, logMaxBytes) : null;
  const log = capped === null ? await open(logPath, "a", 0o600) : null;
  const output = log === null ? "pipe" : log.fd;
  const argv = agentArgv({ wrapper, shell, command });
  const reaperArgs = identity ? ["--uid", String(identity.uid), "--gid", String(identity.gid)] : [];
  if (capped !== null) reaperArgs.push("--merge-stderr");
  reaperArgs.push(...mountArgs(mounts));
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(
      reaperPath,
      ["--grace-ms", String(Math.round(graceMs)), "--status-fd", "3", ...reaperArgs, "--", ...argv],
      // Its own process group: a SIGKILL to the launcher's group (`timeout -s KILL`, `kill -9 -PGID`)
      // does not reach it, so it sees the launcher die (PDEATHSIG) and cleans the agent's tree up.
      { cwd, env, stdio: ["ignore", output, output, "pipe"], windowsHide: true, detached: true },
    );
  } catch (error) {
    await log?.close();
    await capped?.close();
    throw new SpawnFailure({
      message: `cannot start ${reaperPath}: ${(error as Error).message}`,
      cause: error,
    });
  }
  // Everything below is wired synchronously, before the first await: a short-lived agent can start,
  // write, exit and close its pipes while we are still closing the log descriptor.
  const supervisor = new StatusReader(child, argv[0]!);
  const logged =
    capped === null
      ? Promise.resolve()
      : Promise.all([capped.drain(child.stdout), capped.drain(child.stderr)]).then(() => capped.close());
  await log?.close();

  const started = await supervisor.started;
  if (started === null) {
    const end = await supervisor.closed;
    await logged;
    throw (
      supervisor.startError ??
      new SpawnFailure({
        message: end.error
          ? `cannot start ${reaperPath}: ${end.error.message}`
          : `relax-reaper exited before starting the agent (code ${end.code}, signal ${end.signal})`,
      })
    );
  }
  const pid: number = started;

  const exited: Promise<ProcessExit> = supervisor.closed.then(async (end) => {
    const exit = await settle(end);
    await logged;
    return exit;
  });
  const settle = async (end: Awaited<typeof supervisor.closed>): Promise<ProcessExit> => {
    const { agentExit } = supervisor;
    if (supervisor.done && agentExit !== null) {
      const { code, signal } = agentExit;
      return {
        exitCode: code >= 0 ? code : null,
        signal: code >= 0 ? null : signalName(signal),
        leftoverProcesses: supervisor.leftover,
        reaped: true,
      };
    }
    // The supervisor died without confirming cleanup: sweep the session's processes ourselves.
    const swept = await sweepSessionProcesses({ markers, processGroupId: pid });
    const recorded = agentExit;
    return {
      exitCode: recorded ? (recorded.code >= 0 ? recorded.code : null) : null,
      // Unknown when the supervisor did not record it: its own end is reported apart, never as the agent's.
      signal: recorded ? (recorded.code >= 0 ? null : signalName(recorded.signal)) : null,
      leftoverProcesses: swept,
      reaped: false,
      supervisorLost: { code: end.code, signal: end.signal },
    };
  };

  let requests = 0;
  return {
    pid,
    supervisorPid: child.pid ?? null,
    exited,
    terminate({ force = false } = {}) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      requests++;
      try {
        child.kill(force || requests > 1 ? "SIGUSR1" : "SIGTERM");
      } catch {
        // the supervisor is already gone; `exited` reports what happened
      }
    },
  };
}

/** Parses the supervisor's status lines (`started`, `error`, `exit`, `done`) from fd 3. */
class StatusReader {
  agentPid: number | null = null;
  agentExit: { code: number; signal: number } | null = null;
  leftover = 0;
  done = false;
  startError: SpawnFailure | null = null;
  /** The agent's pid once exec'd, or `null` when the supervisor ended without starting it. */
  readonly started: Promise<number | null>;
  /** The supervisor exited and its status pipe was fully read. */
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>;

  constructor(child: ReturnType<typeof spawn>, shell: string) {
    let resolveStarted: (pid: number | null) => void = () => {};
    this.started = new Promise((resolve) => {
      resolveStarted = resolve;
    });
    const exitedProcess = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>(
      (resolve) => {
        child.once("error", (error) => resolve({ code: null, signal: null, error }));
        child.once("exit", (code, signal) => resolve({ code, signal }));
      },
    );
    const status = child.stdio[3] as Readable | null;
    const statusEnded = new Promise<void>((resolve) => {
      if (status === null) return resolve();
      status.once("end", () => resolve());
      status.once("close", () => resolve());
      status.once("error", () => resolve());
    });
    this.closed = Promise.all([exitedProcess, statusEnded]).then(([end]) => {
      resolveStarted(this.agentPid);
      return end;
    });
    void exitedProcess.then((end) => {
      if (end.error) resolveStarted(null); // spawn failed: no status will ever come
    });
    if (status === null) return;
    status.setEncoding("utf8");
    let buffered = "";
    status.on("data", (chunk: string) => {
      buffered += chunk;
      let newline = buffered.indexOf("\n");
      while (newline >= 0) {
        const [word, first = "", second = ""] = buffered.slice(0, newline).split(" ");
        buffered = buffered.slice(newline + 1);
        if (word === "started") {
          this.agentPid = Number(first);
          resolveStarted(this.agentPid);
        } else if (word === "exit") {
          this.agentExit = { code: Number(first), signal: Number(second) };
        } else if (word === "done") {
          this.leftover = Number(first);
          this.done = true;
        } else if (word === "error") {
          const errno = Number(second);
          this.startError = new SpawnFailure({
            message: `relax-reaper could not ${first} ${shell}: ${errnoName(errno)}`,
            errno,
          });
          resolveStarted(null);
        }
        newline = buffered.indexOf("\n");
      }
    });
  }
}

function errnoName(errno: number): string {
  const entry = Object.entries(constants.errno).find(([, value]) => value === errno);
  return entry ? entry[0] : `errno ${errno}`;
}
