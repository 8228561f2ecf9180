import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { AgentConfigError } from "../errors/agent-config-error";
import { hasProcessOfUid, killProcessesOfUid } from "../process/sweep-session-processes";
import { DEFAULT_UID_LEASE_DIR, UidLeaseHolder, type UidLockResult } from "./uid-lease-holder";

/** Default `--agent-uid-range` when the launcher runs as root (see docs/security.md#uid-pool). */
export const DEFAULT_AGENT_UID_RANGE: Readonly<UidRange> = Object.freeze({ start: 61000, end: 61999 });

/** An inclusive range of numeric user ids. */
export interface UidRange {
  start: number;
  end: number;
}

/** The identity one agent runs under: its own uid, and a gid of the same number. */
export interface AgentIdentity {
  uid: number;
  gid: number;
}

/**
 * Parses `--agent-uid-range START-END` (inclusive, 1000 ≤ START ≤ END < 2^31 - 1).
 *
 * @throws {AgentConfigError} a malformed range (`path` names the option).
 */
export function parseUidRange(text: string, { path = "agentUidRange" }: { path?: string } = {}): UidRange {
  const match = /^\s*(\d{1,10})\s*-\s*(\d{1,10})\s*$/.exec(typeof text === "string" ? text : "");
  const start = Number(match?.[1]);
  const end = Number(match?.[2]);
  if (match === null || start < 1000 || end < start || end >= 2 ** 31 - 1) {
    throw new AgentConfigError({
      path,
      message: `expected START-END with 1000 <= START <= END < 2147483647, got ${JSON.stringify(text)}`,
    });
  }
  return { start, end };
}

/** Options of {@link UidPool}. */
export interface UidPoolOptions extends UidRange {
  /**
   * Ids that must not be handed out (already used on this machine). @default every uid of /etc/passwd
   * and every gid of /etc/group (read once at construction); without leases, also the owner of every
   * live process
   */
  inUse?: ReadonlySet<number>;
  /**
   * Folder of the host-wide leases (see {@link UidLeaseHolder}), or `false` for a pool private to this
   * process (tests; never two runs on one host). @default {@link DEFAULT_UID_LEASE_DIR} when root, else `false`
   */
  leaseDir?: string | false;
  /** Told when a stale lease (its holder died) was reclaimed and its leftover processes killed. */
  onStaleLease?: (event: { uid: number; previousHolder: string; killed: number }) => void;
}

/**
 * Hands each concurrently running agent its own unprivileged uid (and a gid of the same number) from a
 * range, so that agents cannot read each other's `/proc/<pid>/environ`, signal or trace each other, or
 * enter each other's session folders. Ids of /etc/passwd and /etc/group are skipped; released ids are
 * reused last (least recently used first).
 *
 * With leases (the default as root), every uid handed out is also leased host-wide for as long as it is
 * held ({@link UidLeaseHolder}): an id another run holds is skipped; an id whose lease was left by a dead
 * holder is reclaimed after every process still running under it is killed (not while the run named in
 * the lease still runs: only its lease helper died); an id never leased (or
 * cleanly released) that still owns a live process belongs to something else on the host and is skipped.
 */
export class UidPool {
  readonly range: Readonly<UidRange>;
  readonly #free: number[] = [];
  readonly #taken = new Set<number>();
  readonly #leaseDir: string | false;
  readonly #onStaleLease: UidPoolOptions["onStaleLease"];
  #leases: Promise<UidLeaseHolder> | undefined;

  constructor(options: UidPoolOptions) {
    const { start, end } = options;
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start) {
      throw new AgentConfigError({ path: "agentUidRange", message: `invalid range ${start}-${end}` });
    }
    this.range = Object.freeze({ start, end });
    this.#leaseDir = options.leaseDir ?? (process.getuid?.() === 0 ? DEFAULT_UID_LEASE_DIR : false);
    this.#onStaleLease = options.onStaleLease;
    const inUse = options.inUse ?? idsInUse({ processOwners: this.#leaseDir === false });
    for (let id = start; id <= end; id++) if (!inUse.has(id)) this.#free.push(id);
  }

  /** How many ids this pool could still hand out (ids leased by other runs included). */
  get available(): number {
    return this.#free.length;
  }

  /** The lease folder, or `false` when this pool does not lease host-wide. */
  get leaseDir(): string | false {
    return this.#leaseDir;
  }

  /**
   * Takes a free id (and, with leases, its host-wide lease).
   * @throws {AgentConfigError} (`path: "agentUidRange"`) when every id of the range is taken (by this
   *   pool, by other runs on this host, or by other processes).
   */
  async acquire(): Promise<AgentIdentity> {
    const leases = this.#leaseDir === false ? null : await this.#openLeases();
    let busy = 0;
    const candidates = this.#free.length;
    for (let attempt = 0; attempt < candidates; attempt++) {
      const id = this.#free.shift();
      if (id === undefined) break;
      if (leases === null) {
        this.#taken.add(id);
        return { uid: id, gid: id };
      }
      if (holderIsAlive(leases.directory, id)) {
        // Tagged by another run that still runs: held, or its lease helper died while its agent may
        // live. Never reclaimed (read before locking: a lock would overwrite the tag).
        busy++;
        this.#free.push(id);
        continue;
      }
      let lease: UidLockResult;
      try {
        lease = await leases.lock(id, `pid${process.pid}`);
      } catch (error) {
        this.#free.unshift(id);
        throw error;
      }
      if (lease.kind === "busy") {
        busy++;
        this.#free.push(id); // another run holds it now; it may be free later
        continue;
      }
      if (lease.previous !== null) {
        // Its holder died with agents running: whatever still runs under the uid is left over.
        const killed = await killProcessesOfUid(id);
        this.#onStaleLease?.({ uid: id, previousHolder: lease.previous, killed });
      } else if (await hasProcessOfUid(id)) {
        await leases.unlock(id); // not Relax's: never hand it out
        continue;
      }
      this.#taken.add(id);
      return { uid: id, gid: id };
    }
    throw new AgentConfigError({
      path: "agentUidRange",
      message: `all ids of ${this.range.start}-${this.range.end} are in use${busy > 0 ? ` (${busy} leased by other runs on this host)` : ""}; widen the range or run fewer agents at once`,
    });
  }

  /**
   * Gives an id back (after every process of that uid is gone), and its lease. Unknown ids are ignored.
   */
  async release(identity: AgentIdentity): Promise<void> {
    if (!this.#taken.delete(identity.uid)) return;
    if (this.#leases !== undefined) await (await this.#leases).unlock(identity.uid).catch(() => {});
    this.#free.push(identity.uid);
  }

  /** Stops leasing: the leases still held are dropped (call once no agent of this pool runs). */
  async close(): Promise<void> {
    const leases = this.#leases;
    this.#leases = undefined;
    if (leases !== undefined) (await leases.catch(() => null))?.close();
  }

  #openLeases(): Promise<UidLeaseHolder> {
    if (this.#leaseDir === false) throw new Error("unreachable: no lease folder");
    this.#leases ??= UidLeaseHolder.open(this.#leaseDir).catch((error: unknown) => {
      this.#leases = undefined;
      throw error;
    });
    return this.#leases;
  }
}

/**
 * Whether the lease file of `uid` names (`pid<N>`, {@link UidPool.acquire}) a gateway other than this
 * process that still runs: its lease helper may have died before it, leaving its live agents' uids
 * unlocked. A pid reused since only makes the uid skipped, never reclaimed.
 */
function holderIsAlive(leaseDir: string, uid: number): boolean {
  let tag = "";
  try {
    tag = readFileSync(join(leaseDir, `${uid}.lock`), "utf8");
  } catch {
    return false; // never leased
  }
  const pid = Number(/^pid(\d+)$/.exec(tag.trim())?.[1]);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Uids of /etc/passwd, gids of /etc/group and (with `processOwners`) owners of live processes. */
function idsInUse({ processOwners }: { processOwners: boolean }): Set<number> {
  const ids = new Set<number>();
  for (const [file, column] of [
    ["/etc/passwd", 2],
    ["/etc/group", 2],
  ] as const) {
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      const id = Number(line.split(":")[column]);
      if (Number.isInteger(id)) ids.add(id);
    }
  }
  if (!processOwners) return ids;
  let names: string[] = [];
  try {
    names = readdirSync("/proc");
  } catch {
    return ids;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      ids.add(statSync(`/proc/${name}`).uid);
    } catch {
      // gone
    }
  }
  return ids;
}
