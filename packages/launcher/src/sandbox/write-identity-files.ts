import { readFile, writeFile } from "node:fs/promises";

/** Paths of the generated account files of one sandbox. */
export interface IdentityFiles {
  /** A copy of the host's `/etc/passwd` in which the agent's uid has an entry. */
  passwd: string;
  /** A copy of the host's `/etc/group` in which the agent's gid has an entry. */
  group: string;
}

/** Name of the account generated for an agent uid that has none: `relax<uid>`. */
export function agentUserName(uid: number): string {
  return `relax${uid}`;
}

/**
 * Writes `<base>.passwd` and `<base>.group` (mode 0644): the host's `/etc/passwd` and `/etc/group`, plus,
 * when `uid` (`gid`) has no entry there, `relax<uid>:x:<uid>:<gid>:Relax agent:<home>:/bin/bash` (and
 * `relax<gid>:x:<gid>:`). Bound over `/etc/passwd` and `/etc/group` in the agent's mount namespace, they
 * make `os.userInfo()`, `id -un`, `getpwuid(3)` and `~` work for a uid the host does not know, without
 * editing the host's files.
 */
export async function writeIdentityFiles({
  base,
  uid,
  gid,
  home,
  passwdSource = "/etc/passwd",
  groupSource = "/etc/group",
}: {
  base: string;
  uid: number;
  gid: number;
  home: string;
  passwdSource?: string;
  groupSource?: string;
}): Promise<IdentityFiles> {
  const name = agentUserName(uid);
  const passwd = await withEntry(
    await readOrEmpty(passwdSource),
    (fields) => Number(fields[2]) === uid,
    `${name}:x:${uid}:${gid}:Relax agent:${home}:/bin/bash`,
  );
  const group = await withEntry(
    await readOrEmpty(groupSource),
    (fields) => Number(fields[2]) === gid,
    `${agentUserName(gid)}:x:${gid}:`,
  );
  const files = { passwd: `${base}.passwd`, group: `${base}.group` };
  await writeFile(files.passwd, passwd, { mode: 0o644 });
  await writeFile(files.group, group, { mode: 0o644 });
  return files;
}

async function readOrEmpty(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return "";
  }
}

async function withEntry(
  text: string,
  matches: (fields: string[]) => boolean,
  entry: string,
): Promise<string> {
  const lines = text.split("\n").filter((line) => line !== "");
  if (lines.some((line) => matches(line.split(":")))) return `${lines.join("\n")}\n`;
  const name = entry.split(":")[0];
  const kept = lines.filter((line) => line.split(":")[0] !== name);
  return `${[...kept, entry].join("\n")}\n`;
}
