import { readdir, readFile } from "node:fs/promises";

/** One row of the process table, read from `/proc/<pid>/stat`. */
export interface ProcessEntry {
  pid: number;
  /** Parent pid. */
  ppid: number;
  /** Process group id. */
  pgid: number;
  /** Session id. */
  sid: number;
  /** Kernel state letter: `R`, `S`, `D`, `T`, `Z` (zombie), ... */
  state: string;
  /** Executable name (`comm`, at most 15 characters). */
  comm: string;
}

/**
 * Reads the process table from `/proc` (Linux). Processes that vanish while being read are skipped.
 * Zombies are included (state `Z`).
 */
export async function listProcesses(): Promise<ProcessEntry[]> {
  const names = await readdir("/proc");
  const entries = await Promise.all(
    names.filter((name) => /^\d+$/.test(name)).map((name) => readProcessEntry(Number(name))),
  );
  return entries.filter((entry): entry is ProcessEntry => entry !== null);
}

/** Reads one `/proc/<pid>/stat`, or `null` when the process is gone. */
export async function readProcessEntry(pid: number): Promise<ProcessEntry | null> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses.
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const fields = text.slice(close + 2).split(" ");
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: fields[0] ?? "?",
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    sid: Number(fields[3]),
  };
}

/**
 * Reads `/proc/<pid>/environ` as a key → value map, or `null` when it cannot be read (another user's
 * process, a zombie, or gone).
 */
export async function readProcessEnviron(pid: number): Promise<Map<string, string> | null> {
  let buffer: Buffer;
  try {
    buffer = await readFile(`/proc/${pid}/environ`);
  } catch {
    return null;
  }
  const environ = new Map<string, string>();
  for (const entry of buffer.toString("utf8").split("\0")) {
    const separator = entry.indexOf("=");
    if (separator > 0) environ.set(entry.slice(0, separator), entry.slice(separator + 1));
  }
  return environ;
}
