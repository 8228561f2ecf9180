import { statSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { listProcesses, readProcessEntry, readProcessEnviron } from "./list-processes";

/** Which processes belong to a session. */
export interface SessionProcessMatch {
  /** Environment entries that all must be present (e.g. `RELAX_SESSION_ID` and `RELAX_SESSION_IO_DIR`). */
  markers: Readonly<Record<string, string>>;
  /** Also match every member of this process group (the agent's pgid). */
  processGroupId?: number;
}

/**
 * Finds live processes of a session by scanning `/proc`: members of its process group, and processes
 * whose environment carries every marker (inherited by every descendant that did not clear its
 * environment, even after `setsid` or a double fork). The launcher's own process is never matched.
 *
 * @returns matching pids, zombies excluded (they cannot be killed, only reaped by their parent).
 */
export async function findSessionProcesses({
  markers,
  processGroupId,
}: SessionProcessMatch): Promise<number[]> {
  const entries = (await listProcesses()).filter((entry) => entry.pid !== process.pid && entry.state !== "Z");
  const markerEntries = Object.entries(markers);
  const matches = await Promise.all(
    entries.map(async (entry) => {
      if (processGroupId !== undefined && entry.pgid === processGroupId) return entry.pid;
      if (markerEntries.length === 0) return null;
      const environ = await readProcessEnviron(entry.pid);
      if (environ === null) return null;
      return markerEntries.every(([key, value]) => environ.get(key) === value) ? entry.pid : null;
    }),
  );
  return matches.filter((pid): pid is number => pid !== null);
}

/**
 * Terminates every live process of a session: SIGTERM (+ SIGCONT), then SIGKILL to whatever is still
 * there after `graceMs`, repeating until none is found. This is the launcher-side safety net; it cannot
 * reap orphans (only a subreaper or PID 1 can), which is why `relax-reaper` is the primary mechanism.
 *
 * @param options.graceMs milliseconds between SIGTERM and SIGKILL (0 = SIGKILL at once). @default 0
 * @returns how many distinct processes were signalled.
 */
export async function sweepSessionProcesses({
  graceMs = 0,
  ...match
}: SessionProcessMatch & { graceMs?: number }): Promise<number> {
  const signalled = new Set<number>();
  let pids = await findSessionProcesses(match);
  if (pids.length === 0) return 0;
  if (graceMs > 0) {
    for (const pid of pids) {
      signal(pid, "SIGTERM");
      signal(pid, "SIGCONT");
      signalled.add(pid);
    }
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline) {
      await delay(20);
      pids = await findSessionProcesses(match);
      if (pids.length === 0) return signalled.size;
    }
  }
  for (let round = 0; round < 100 && pids.length > 0; round++) {
    for (const pid of pids) {
      signal(pid, "SIGKILL");
      signalled.add(pid);
    }
    await delay(10);
    pids = await findSessionProcesses(match);
  }
  return signalled.size;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

function ownerOf(pid: number): number | null {
  try {
    return statSync(`/proc/${pid}`).uid;
  } catch {
    return null; // gone
  }
}

function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** Whether a live (non-zombie) process other than this one is owned by `uid`. */
export async function hasProcessOfUid(uid: number): Promise<boolean> {
  return (await liveProcessesOfUid(uid)).length > 0;
}

async function liveProcessesOfUid(uid: number): Promise<number[]> {
  const names = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  const owned = (
    await Promise.all(
      names.map(async (name) => {
        try {
          return (await stat(`/proc/${name}`)).uid === uid ? Number(name) : null;
        } catch {
          return null; // gone
        }
      }),
    )
  ).filter((pid): pid is number => pid !== null && pid !== process.pid);
  const entries = await Promise.all(owned.map((pid) => readProcessEntry(pid)));
  return entries.filter((entry) => entry !== null && entry.state !== "Z").map((entry) => entry!.pid);
}

/**
 * SIGKILLs every live process owned by `uid` (the owner of `/proc/<pid>`), repeating until none is
 * left. Only for uids handed out exclusively to one agent (the uid pool): whatever runs under it
 * belongs to that agent.
 *
 * @returns how many distinct processes were signalled.
 */
export async function killProcessesOfUid(uid: number): Promise<number> {
  const signalled = new Set<number>();
  for (let round = 0; round < 100; round++) {
    // Owners first (one stat per pid); the state only for the few that match (zombies cannot be killed).
    const live = await liveProcessesOfUid(uid);
    if (live.length === 0) break;
    for (const pid of live) {
      // The scan takes a while under load: a pid that ended since may already belong to another
      // session's process (pid_max is often 32768). Its owner is checked again right before the kill.
      if (ownerOf(pid) !== uid) continue;
      signal(pid, "SIGKILL");
      signalled.add(pid);
    }
    await delay(10);
  }
  return signalled.size;
}
