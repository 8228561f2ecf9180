import { spawn } from "node:child_process";
import { open } from "node:fs/promises";
import { SpawnFailure } from "../errors/spawn-failure";
import {
  type AgentProcess,
  agentArgv,
  type ProcessExit,
  type SpawnAgentProcessOptions,
} from "./agent-process";
import { CappedLog } from "./capped-log";
import { sweepSessionProcesses } from "./sweep-session-processes";

/**
 * Fallback for machines without `relax-reaper`: starts `<shell> -lc <command>` in a new session / process
 * group directly from Node and terminates by signalling the group plus a `/proc` sweep for the session
 * markers (which also finds descendants that left the group with `setsid`). Limitation: orphaned
 * descendants are re-parented to PID 1, so their zombies are only reaped if PID 1 reaps; `reaped` is
 * therefore always `false`. Prefer {@link spawnSupervisedProcess}.
 *
 * @throws {SpawnFailure} when the shell cannot be started.
 */
export async function spawnProcessGroup({
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
}: SpawnAgentProcessOptions): Promise<AgentProcess> {
  const capped = logMaxBytes > 0 ? await CappedLog.open(logPath, logMaxBytes) : null;
  const log = capped === null ? await open(logPath, "a", 0o600) : null;
  const output = log === null ? "pipe" : log.fd;
  const [program, ...args] = agentArgv({ wrapper, shell, command, mergeStderr: capped !== null });
  let child: ReturnType<typeof spawn>;
  let spawned: Promise<Error | null>;
  let exitedRaw: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let logged: Promise<void> = Promise.resolve();
  try {
    child = spawn(program!, args, {
      cwd,
      env,
      stdio: ["ignore", output, output],
      detached: true,
      windowsHide: true,
      ...(identity !== undefined ? { uid: identity.uid, gid: identity.gid } : {}),
    });
    // Listen before any await: "spawn" / "error" / "exit" may fire on the next tick.
    spawned = new Promise<Error | null>((resolve) => {
      child.once("spawn", () => resolve(null));
      child.once("error", (error) => resolve(error));
    });
    exitedRaw = new Promise((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
    });
    if (capped !== null) {
      logged = Promise.all([capped.drain(child.stdout), capped.drain(child.stderr)]).then(() =>
        capped.close(),
      );
    }
  } finally {
    await log?.close();
  }
  const spawnError = await spawned;
  if (spawnError !== null || child.pid === undefined) {
    await capped?.close();
    throw new SpawnFailure({
      message: `cannot start ${program}: ${spawnError?.message ?? "no pid"}`,
      cause: spawnError,
    });
  }
  const pid = child.pid;

  let terminating: Promise<number> | null = null;
  const sweep = (grace: number) => sweepSessionProcesses({ markers, processGroupId: pid, graceMs: grace });

  const exited: Promise<ProcessExit> = exitedRaw.then(async ({ code, signal }) => {
    // Whatever is left of the session once the agent is gone (daemons, setsid'd children).
    let leftover = 0;
    if (terminating) await terminating;
    else leftover = await sweep(graceMs);
    await sweep(0);
    await logged;
    return { exitCode: code, signal, leftoverProcesses: leftover, reaped: false };
  });

  let requests = 0;
  return {
    pid,
    supervisorPid: null,
    exited,
    terminate({ force = false } = {}) {
      requests++;
      const grace = force || requests > 1 ? 0 : graceMs;
      if (terminating && grace > 0) return;
      terminating = sweep(grace);
    },
  };
}
