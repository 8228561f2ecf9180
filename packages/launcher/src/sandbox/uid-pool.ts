import { readdirSync, readFileSync, statSync } from "node:fs";
import { AgentConfigError } from "../errors/agent-config-error";

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
   * Ids that must not be handed out (already used on this machine). @default every uid of /etc/passwd,
   * every gid of /etc/group, and the owner of every live process, read once at construction
   */
  inUse?: ReadonlySet<number>;
}

/**
 * Hands each concurrently running agent its own unprivileged uid (and a gid of the same number) from a
 * range, so that agents cannot read each other's `/proc/<pid>/environ`, signal or trace each other, or
 * enter each other's session folders. Ids used on the machine are skipped; released ids are reused
 * last (least recently used first).
 */
export class UidPool {
  readonly range: Readonly<UidRange>;
  readonly #free: number[] = [];
  readonly #taken = new Set<number>();

  constructor(options: UidPoolOptions) {
    const { start, end } = options;
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start) {
      throw new AgentConfigError({ path: "agentUidRange", message: `invalid range ${start}-${end}` });
    }
    this.range = Object.freeze({ start, end });
    const inUse = options.inUse ?? idsInUse();
    for (let id = start; id <= end; id++) if (!inUse.has(id)) this.#free.push(id);
  }

  /** How many ids are free now. */
  get available(): number {
    return this.#free.length;
  }

  /**
   * Takes a free id.
   * @throws {AgentConfigError} (`path: "agentUidRange"`) when every id of the range is taken.
   */
  acquire(): AgentIdentity {
    const id = this.#free.shift();
    if (id === undefined) {
      throw new AgentConfigError({
        path: "agentUidRange",
        message: `all ids of ${this.range.start}-${this.range.end} are in use; widen the range or run fewer agents at once`,
      });
    }
    this.#taken.add(id);
    return { uid: id, gid: id };
  }

  /** Gives an id back (after every process of that uid is gone). Unknown ids are ignored. */
  release(identity: AgentIdentity): void {
    if (this.#taken.delete(identity.uid)) this.#free.push(identity.uid);
  }
}

/** Uids of /etc/passwd, gids of /etc/group and owners of live processes. */
function idsInUse(): Set<number> {
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
