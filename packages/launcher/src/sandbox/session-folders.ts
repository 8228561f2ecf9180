import { randomBytes } from "node:crypto";
import { lstat, mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

/** Prefix of the per-launcher folder holding the session folders (`relax-sessions-<pid>-<random>`). */
export const SESSION_ROOT_PREFIX = "relax-sessions-";

const rootPattern = /^relax-sessions-(\d+)-[0-9a-f]{8}$/;

/** A file in a session root whose folders were kept on purpose (`--keep-session-dirs`): never swept. */
export const KEPT_ROOT_MARKER = ".relax-kept";

/**
 * Creates this launcher's folder for session folders under `ioRoot`: `relax-sessions-<pid>-<random>`,
 * owned by the launcher, mode 0711 (others may pass through to their own session folder but not list
 * it) or 0700 when no other uid needs to pass. The pid lets a later launcher sweep it once this one is
 * gone ({@link sweepStaleSessionRoots}).
 */
export async function createSessionRoot(ioRoot: string, { shared }: { shared: boolean }): Promise<string> {
  await mkdir(ioRoot, { recursive: true });
  const root = join(ioRoot, `${SESSION_ROOT_PREFIX}${process.pid}-${randomBytes(4).toString("hex")}`);
  await mkdir(root, { mode: shared ? 0o711 : 0o700 });
  return root;
}

/**
 * Removes session roots left under `ioRoot` by launchers that are gone (killed before cleanup): only
 * folders named `relax-sessions-<pid>-<8 hex>`, owned by the current uid, whose pid is not alive, and
 * not holding {@link KEPT_ROOT_MARKER} (folders a run kept on purpose).
 *
 * @returns the removed paths.
 */
export async function sweepStaleSessionRoots(ioRoot: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(ioRoot);
  } catch {
    return [];
  }
  const removed: string[] = [];
  const uid = process.getuid?.();
  for (const name of names) {
    const match = rootPattern.exec(name);
    if (match === null) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || isAlive(pid)) continue;
    const path = join(ioRoot, name);
    try {
      const stats = await lstat(path);
      if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) continue;
      if (await exists(join(path, KEPT_ROOT_MARKER))) continue;
      await rm(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // vanished or not removable: leave it
    }
  }
  return removed;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
