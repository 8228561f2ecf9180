import { closeSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { RELAX_ENV } from "../contract/agent-process-contract";
import type { SandboxBackend } from "./sandbox-backend";

/**
 * The host paths an agent command needs, as far as they can be told from its text: every word that
 * names an existing file or folder (absolute, or relative to `cwd`), the program (first word, looked up
 * in `PATH`), and the interpreter of each script's `#!` line; symbolic links resolved (both the link and
 * its target must be reachable). A heuristic over whitespace-separated words (quotes stripped), for a
 * start-up check only: words that name nothing on this machine are left out.
 */
export function agentCommandPaths(
  command: string,
  { cwd, path = process.env.PATH ?? "" }: { cwd: string; path?: string },
): string[] {
  const found = new Set<string>();
  const add = (candidate: string) => {
    let real: string;
    try {
      statSync(candidate);
      real = realpathSync(candidate);
    } catch {
      return;
    }
    found.add(candidate);
    found.add(real);
    const interpreter = shebangInterpreter(real);
    if (interpreter !== null && !found.has(interpreter)) add(interpreter);
  };
  const words = command
    .split(/\s+/)
    .map((word) => word.replace(/^['"]+|['"]+$/g, ""))
    .filter((word) => word !== "" && !word.startsWith("-") && !word.includes("$") && !word.includes("="));
  const [program] = words;
  if (program !== undefined && !program.includes("/")) {
    for (const folder of path.split(delimiter)) {
      if (folder === "" || !isAbsolute(folder)) continue;
      const candidate = join(folder, program);
      try {
        if (statSync(candidate).isFile()) {
          add(candidate);
          break;
        }
      } catch {
        // not here
      }
    }
  }
  for (const word of words) {
    if (!word.includes("/") && !/\.(m?js|cjs|ts|py|sh|rb|pl)$/.test(word)) continue;
    add(resolve(cwd, word));
  }
  return [...found];
}

function shebangInterpreter(path: string): string | null {
  let fd: number;
  try {
    if (!statSync(path).isFile()) return null;
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    const buffer = Buffer.alloc(256);
    const length = readSync(fd, buffer, 0, 256, 0);
    const line = buffer.subarray(0, length).toString("utf8").split("\n")[0] ?? "";
    const match = /^#!\s*(\/\S+)/.exec(line);
    return match?.[1] ?? null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Checks, before the first Group, that an agent of `backend` (its uid, its mount namespace) can enter
 * `cwd` and read every path of {@link agentCommandPaths}: one probe process runs in a sandbox of the
 * backend and tries each. Runs `bash -lc` once (about 50 ms).
 *
 * @returns `null` when everything is reachable, else one line naming the first path the agent cannot
 *   reach, the folder that blocks it, and the fix.
 */
export async function preflightAgentCommand({
  backend,
  command,
  cwd,
}: {
  backend: SandboxBackend;
  command: string;
  cwd: string;
}): Promise<string | null> {
  const paths = agentCommandPaths(command, { cwd });
  const sandbox = await backend.create({ sessionLabel: "preflight" });
  try {
    const report = `${sandbox.ioDir}/preflight.txt`;
    const quoted = paths.map(shellQuote).join(" ");
    // For each path: readable (a folder: enterable and listable)? If not, the first folder on the way
    // that cannot be entered, else the path itself.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansions, not JS placeholders
    const script = [
      `exec > ${shellQuote(report)}`,
      'echo "uid $(id -u)"',
      `cd ${shellQuote(cwd)} 2>/dev/null || echo "cwd ${cwd.replace(/[\n"]/g, "")}"`,
      `for p in ${quoted}; do`,
      '  if [ ! -e "$p" ] && [ -x "$(dirname "$p")" ]; then echo "missing $p"; break; fi',
      '  if [ -d "$p" ]; then [ -x "$p" ] && [ -r "$p" ] && continue; elif [ -r "$p" ]; then continue; fi',
      '  d=/; blocked="$p"; rest="${p#/}"',
      '  while [ -n "$rest" ]; do part="${rest%%/*}"; [ "$part" = "$rest" ] && rest="" || rest="${rest#*/}"',
      '    d="${d%/}/$part"; [ -n "$rest" ] || break; if [ ! -x "$d" ]; then blocked="$d"; break; fi; done',
      '  echo "blocked $p $blocked"; break',
      "done",
    ].join("\n");
    const process = await sandbox.spawn({
      command: script,
      cwd,
      env: {
        [RELAX_ENV.sessionIoDir]: sandbox.ioDir,
        [RELAX_ENV.sessionId]: `preflight-${globalThis.process.pid}`,
        // Never called; a network-restricted backend needs one to set its relay up.
        [RELAX_ENV.baseUrl]: "http://127.0.0.1:9/",
      },
      logPath: sandbox.logPath,
      graceMs: 0,
    });
    await process.exited;
    const text = new TextDecoder().decode((await sandbox.readFile(report)) ?? new Uint8Array());
    const uid = /^uid (\d+)$/m.exec(text)?.[1] ?? "?";
    const who = `agents (uid ${uid}, ${backend.name} backend)`;
    const fix = (folder: string) =>
      `fix: chmod o+x ${folder} (and o+r on the agent's files), or move the agent to a folder other users can enter (e.g. /opt/<app>), or run agents as the gateway's uid with --agent-uid-range none (no isolation)`;
    const cwdLine = /^cwd (.*)$/m.exec(text);
    if (cwdLine !== null) return `${who} cannot enter --agent-cwd ${cwdLine[1]}; ${fix(cwdLine[1]!)}`;
    const missing = /^missing (.*)$/m.exec(text);
    if (missing !== null) {
      return `${missing[1]}, which the agent command needs, does not exist for ${who} (bubblewrap's private /tmp hides the host's /tmp); move it out of /tmp or under --agent-cwd`;
    }
    const blocked = /^blocked (\S+) (\S+)$/m.exec(text);
    if (blocked !== null) {
      const [, path, folder] = blocked;
      const mode = modeOf(folder!);
      return path === folder
        ? `${who} cannot read ${path} (mode ${mode}), which the agent command needs; fix: chmod o+r ${path}, or --agent-uid-range none (no isolation)`
        : `${who} cannot reach ${path}, which the agent command needs: ${folder} (mode ${mode}) cannot be entered by other users; ${fix(folder!)}`;
    }
    return null;
  } finally {
    await sandbox.destroy();
  }
}

function modeOf(path: string): string {
  try {
    return (statSync(path).mode & 0o777).toString(8).padStart(4, "0");
  } catch {
    return "?";
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
