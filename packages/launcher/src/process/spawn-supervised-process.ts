import { spawn } from "node:child_process";
import { open } from "node:fs/promises";
import { constants } from "node:os";
import type { Readable } from "node:stream";
import type { AgentProcess, ProcessExit, SpawnAgentProcessOptions } from "./agent-process";
import { signalName } from "./signal-name";
import { sweepSessionProcesses } from "./sweep-session-processes";

/** The agent could not be started (the shell failed to exec, or the supervisor failed). */
export class SpawnFailure extends Error {
  constructor(
    message: string,
    readonly errno: number | null,
  ) {
    super(message);
    this.name = "SpawnFailure";
  }
}

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
}: SpawnAgentProcessOptions & { reaperPath: string }): Promise<AgentProcess> {
  const log = await open(logPath, "a");
  let child: ReturnType<typeof spawn>;
  let closed: Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>;
  try {
    child = spawn(
      reaperPath,
      ["--grace-ms", String(Math.round(graceMs)), "--status-fd", "3", "--", shell, "-lc", command],
      { cwd, env, stdio: ["ignore", log.fd, log.fd, "pipe"], windowsHide: true },
    );
    // Listen before any await: "error" (e.g. ENOENT) may fire on the next tick.
    closed = new Promise((resolve) => {
      child.once("error", (error) => resolve({ code: null, signal: null, error }));
      child.once("close", (code, signal) => resolve({ code, signal }));
    });
  } finally {
    await log.close();
  }

  let agentPid: number | null = null;
  let agentExit: { code: number; signal: number } | null = null;
  let leftover = 0;
  let done = false;
  let startError: SpawnFailure | null = null;

  const status = child.stdio[3] as Readable;
  status.setEncoding("utf8");
  let buffered = "";
  let onStatusLine: () => void = () => {};
  status.on("data", (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const [word, first = "", second = ""] = buffered.slice(0, newline).split(" ");
      buffered = buffered.slice(newline + 1);
      if (word === "started") agentPid = Number(first);
      else if (word === "exit") agentExit = { code: Number(first), signal: Number(second) };
      else if (word === "done") {
        leftover = Number(first);
        done = true;
      } else if (word === "error") {
        const errno = Number(second);
        startError = new SpawnFailure(`relax-reaper could not ${first} ${shell}: ${errnoName(errno)}`, errno);
      }
      onStatusLine();
      newline = buffered.indexOf("\n");
    }
  });

  // Wait for "started <pid>", an "error" line, or the supervisor's end, whichever comes first.
  await new Promise<void>((resolve) => {
    onStatusLine = () => {
      if (agentPid !== null || startError !== null) resolve();
    };
    void closed.then(() => resolve());
  });
  onStatusLine = () => {};
  if (agentPid === null) {
    const end = await closed;
    throw (
      startError ??
      new SpawnFailure(
        end.error
          ? `cannot start ${reaperPath}: ${end.error.message}`
          : `relax-reaper exited before starting the agent (code ${end.code}, signal ${end.signal})`,
        null,
      )
    );
  }
  const pid: number = agentPid;

  const exited: Promise<ProcessExit> = closed.then(async (end) => {
    if (done && agentExit !== null) {
      const { code, signal } = agentExit;
      return {
        exitCode: code >= 0 ? code : null,
        signal: code >= 0 ? null : signalName(signal),
        leftoverProcesses: leftover,
        reaped: true,
      };
    }
    // The supervisor died without confirming cleanup: sweep the session's processes ourselves.
    const swept = await sweepSessionProcesses({ markers, processGroupId: pid });
    const recorded = agentExit as { code: number; signal: number } | null;
    return {
      exitCode: recorded ? (recorded.code >= 0 ? recorded.code : null) : null,
      signal: recorded
        ? recorded.code >= 0
          ? null
          : signalName(recorded.signal)
        : (end.signal ?? "SIGKILL"),
      leftoverProcesses: swept,
      reaped: false,
    };
  });

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

function errnoName(errno: number): string {
  const entry = Object.entries(constants.errno).find(([, value]) => value === errno);
  return entry ? entry[0] : `errno ${errno}`;
}
