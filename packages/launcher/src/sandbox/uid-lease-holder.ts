import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { lstatSync, mkdirSync } from "node:fs";
import { AgentConfigError } from "../errors/agent-config-error";
import { resolveReaperBinary } from "../process/resolve-reaper-binary";

/**
 * Default folder of the host-wide uid leases (`--agent-uid-lease-dir`): on tmpfs, so a reboot clears it,
 * created root-owned and 0700 (agents can neither take nor read a lease).
 */
export const DEFAULT_UID_LEASE_DIR = "/run/relax/uid-leases";

/** What {@link UidLeaseHolder.lock} found. */
export type UidLockResult =
  /** The lease is ours; `previous` is the tag of a holder that died without releasing it, or `null`. */
  | { kind: "ok"; previous: string | null }
  /** Another live holder (another run on this host, or this one) has it. */
  | { kind: "busy" };

/**
 * Holds host-wide uid leases through one `relax-reaper --lease-holder DIR` process: each lease is an
 * exclusive `flock(2)` on `DIR/<uid>.lock`, so two runs (same range or overlapping) never hold one uid;
 * when this process dies, however it dies, the helper sees its stdin close (or its parent die) and the
 * kernel drops every lock. A lease file keeps its holder's tag while held and is emptied on a clean
 * release, so a later holder tells a stale lease (the tag is still there) from a free one.
 */
export class UidLeaseHolder {
  readonly directory: string;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  #buffered = "";
  #failure: Error | null = null;

  private constructor(directory: string, child: ChildProcessWithoutNullStreams) {
    this.directory = directory;
    this.#child = child;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      this.#buffered += chunk;
      for (let newline = this.#buffered.indexOf("\n"); newline >= 0; newline = this.#buffered.indexOf("\n")) {
        const line = this.#buffered.slice(0, newline);
        this.#buffered = this.#buffered.slice(newline + 1);
        this.#waiting.shift()?.resolve(line);
        if (this.#waiting.length === 0) this.#reference(false);
      }
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    const fail = (reason: string) => {
      this.#failure ??= new Error(`uid lease holder ended: ${reason}${stderr ? ` (${stderr.trim()})` : ""}`);
      for (const waiter of this.#waiting.splice(0)) waiter.reject(this.#failure);
    };
    child.on("error", (error) => fail(error.message));
    child.on("exit", (code, signal) => fail(`exit ${code ?? signal}`));
    child.stdin.on("error", () => {});
    // The helper must not keep this process alive when idle; it ends with it.
    this.#reference(false);
  }

  /** Keeps this process alive while an answer is awaited, and only then. */
  #reference(referenced: boolean): void {
    const child = this.#child;
    if (referenced) child.ref();
    else child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) {
      const handle = stream as unknown as { ref?: () => void; unref?: () => void };
      if (referenced) handle.ref?.();
      else handle.unref?.();
    }
  }

  /**
   * Creates `directory` (root-owned, 0700) when missing and starts the helper.
   * @throws {AgentConfigError} (`path: "uidLeaseDir"`) when the folder is not a 0700 folder of this uid.
   */
  static async open(directory: string = DEFAULT_UID_LEASE_DIR): Promise<UidLeaseHolder> {
    try {
      mkdirSync(directory, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new AgentConfigError({
        path: "uidLeaseDir",
        message: `cannot create ${directory}: ${(error as Error).message}`,
        cause: error,
      });
    }
    const stats = lstatSync(directory);
    if (!stats.isDirectory() || stats.uid !== process.getuid?.() || (stats.mode & 0o077) !== 0) {
      throw new AgentConfigError({
        path: "uidLeaseDir",
        message: `${directory} must be a folder owned by uid ${process.getuid?.()} with mode 0700 (it has owner ${stats.uid}, mode ${(stats.mode & 0o777).toString(8)})`,
      });
    }
    const binary = await resolveReaperBinary();
    const child = spawn(binary, ["--lease-holder", directory], { stdio: ["pipe", "pipe", "pipe"] });
    return new UidLeaseHolder(directory, child);
  }

  /** Tries to take the lease of `uid` for `holder` (a tag of `[A-Za-z0-9@._-]`), without waiting. */
  async lock(uid: number, holder: string): Promise<UidLockResult> {
    const line = await this.#request(`lock ${uid} ${holder.replace(/[^A-Za-z0-9@._-]/g, "_") || "-"}`);
    const [word, , previous = "-"] = line.split(" ");
    if (word === "ok") return { kind: "ok", previous: previous === "-" ? null : previous };
    if (word === "busy") return { kind: "busy" };
    throw new Error(`uid lease ${uid} in ${this.directory}: ${line}`);
  }

  /** Releases the lease of `uid` cleanly (its file emptied). Unknown uids are ignored. */
  async unlock(uid: number): Promise<void> {
    await this.#request(`unlock ${uid}`);
  }

  /** Ends the helper: every lease it holds is dropped. */
  close(): void {
    this.#child.stdin.end();
  }

  #request(line: string): Promise<string> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#reference(true);
      this.#child.stdin.write(`${line}\n`);
    });
  }
}
