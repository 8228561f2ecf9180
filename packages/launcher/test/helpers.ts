import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFile, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { LocalProcessBackend, type LocalProcessBackendOptions } from "../src/index";

const execFileAsync = promisify(execFile);

/** One row of `ps -eo pid=,ppid=,stat=,comm=`. */
export interface PsRow {
  pid: number;
  ppid: number;
  stat: string;
  comm: string;
}

/** Lists every process with `ps` (zombies included: their stat holds `Z`). */
export async function ps(): Promise<PsRow[]> {
  const { stdout } = await execFileAsync("ps", ["-eo", "pid=,ppid=,stat=,comm="], { maxBuffer: 16 << 20 });
  return stdout
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length >= 4)
    .map(([pid, ppid, stat, ...comm]) => ({
      pid: Number(pid),
      ppid: Number(ppid),
      stat: stat!,
      comm: comm.join(" "),
    }));
}

/**
 * Copies of `sleep` and `bash` with unique executable names, so every process (and zombie) of a test's
 * agent tree can be found in `ps` by its `comm`, even after re-parenting or `setsid`.
 */
export interface MarkerKit {
  dir: string;
  /** Path of the marked `sleep`. */
  sleep: string;
  /** Path of the marked `bash`. */
  bash: string;
  /** `comm` names (≤ 15 characters) of the two binaries. */
  names: string[];
  /** Every process (zombies included) running a marked binary. */
  processes(): Promise<PsRow[]>;
}

export async function createMarkerKit(): Promise<MarkerKit> {
  const tag = randomBytes(4).toString("hex");
  const dir = await tempDir("marker");
  const names = [`rlx${tag}s`, `rlx${tag}b`];
  const sleep = join(dir, names[0]!);
  const bash = join(dir, names[1]!);
  await copyFile("/bin/sleep", sleep);
  await copyFile("/bin/bash", bash);
  const { chmod } = await import("node:fs/promises");
  await Promise.all([chmod(sleep, 0o755), chmod(bash, 0o755)]);
  return {
    dir,
    sleep,
    bash,
    names,
    processes: async () => (await ps()).filter((row) => names.includes(row.comm)),
  };
}

/** Polls `predicate` every 20 ms until it holds; throws after `timeoutMs`. */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  { timeoutMs = 45_000, what = "condition" }: { timeoutMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const createdDirs: string[] = [];

/** A temporary directory, removed by {@link removeTempDirs} (registered in `test/setup.ts`). */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `relax-launcher-${prefix}-`));
  createdDirs.push(dir);
  return dir;
}

/** Removes every directory made by {@link tempDir} in this test file. */
export async function removeTempDirs(): Promise<void> {
  const dirs = createdDirs.splice(0);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}

/**
 * A local backend for tests: IO directories under a fresh root, and HOME pointed at an empty directory so
 * `bash -l` does not source the developer's ~/.profile (pyenv etc. make login shells slow on some hosts).
 */
export async function createTestBackend(
  options: LocalProcessBackendOptions & { extraEnv?: Record<string, string> } = {},
): Promise<{ backend: LocalProcessBackend; ioRoot: string; home: string; ioDirs(): Promise<string[]> }> {
  const { extraEnv = {}, ...rest } = options;
  const ioRoot = await tempDir("io");
  const home = await tempDir("home");
  await mkdir(home, { recursive: true });
  const backend = new LocalProcessBackend({
    ioRoot,
    baseEnv: { ...process.env, HOME: home, ...extraEnv },
    envInherit: "all",
    ...rest,
  });
  return { backend, ioRoot, home, ioDirs: () => sessionEntries(ioRoot) };
}

/** Session folders and default logs under the backend's session roots (`<ioRoot>/relax-sessions-*`). */
export async function sessionEntries(ioRoot: string): Promise<string[]> {
  const entries: string[] = [];
  for (const root of await readdir(ioRoot)) {
    if (!root.startsWith("relax-sessions-")) {
      entries.push(root);
      continue;
    }
    for (const name of await readdir(join(ioRoot, root))) entries.push(`${root}/${name}`);
  }
  return entries;
}

/** Single-quotes a string for bash. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
