import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { RELAX_ENV } from "../contract/agent-process-contract";
import { AgentConfigError } from "../errors/agent-config-error";
import {
  LocalProcessBackend,
  type LocalProcessBackendOptions,
  type LocalSandboxLayout,
  type PreparedSpawn,
} from "./local-process-backend";
import { PACKAGE_ROOT, startNetworkRelay } from "./start-network-relay";
import { writeIdentityFiles } from "./write-identity-files";

/**
 * Network of a bubblewrap sandbox (`--agent-network`):
 * - `"host"`: the host's network namespace (the gateway and everything else reachable);
 * - `"gateway-only"`: a new network namespace with only a loopback interface, where a relay listening
 *   on `127.0.0.1:<gateway port>` forwards to the gateway through a Unix socket bound into the sandbox;
 *   `RELAX_BASE_URL` points at that relay. Nothing else outside is reachable;
 * - `"none"`: a new network namespace with only a loopback interface (nothing outside reachable, the
 *   gateway included).
 */
export type BwrapNetwork = "host" | "gateway-only" | "none";

/** Options of {@link BwrapBackend} (`network` and `allow` as on the local backend, no uid pool needed). */
export interface BwrapBackendOptions extends LocalProcessBackendOptions {
  /** Path of the `bwrap` binary. @default "bwrap" (looked up in PATH) */
  bwrapPath?: string;
}

/**
 * Runs each session in a bubblewrap sandbox (Debian package `bubblewrap`) on top of the local backend
 * (same supervision, uid pool, log handling): new user, pid, IPC, UTS and cgroup namespaces (the agent
 * sees only its own processes in `/proc`), the host's root file system read-only, a private `/tmp` and
 * `/dev`, this backend's session root hidden behind an empty read-only tmpfs, and only the session folder and
 * the working directory (`--agent-cwd`) bound writable. `HOME` is the session folder. See
 * {@link BwrapNetwork} for the network. What it does not
 * isolate is listed in docs/security.md#bubblewrap.
 */
export class BwrapBackend extends LocalProcessBackend {
  override readonly name: string = "bwrap";
  readonly bwrapPath: string;

  constructor(options: BwrapBackendOptions = {}) {
    super(options);
    this.bwrapPath = options.bwrapPath ?? "bwrap";
  }

  /**
   * Checks that bubblewrap runs here (as the agents will: unprivileged, in a user namespace).
   * @throws {AgentConfigError} (`path: "sandbox"`) naming the problem, e.g. bwrap not installed.
   */
  checkAvailable(): void {
    try {
      execFileSync(this.bwrapPath, ["--unshare-user", "--ro-bind", "/", "/", "--", "/bin/true"], {
        stdio: ["ignore", "ignore", "pipe"],
        timeout: 10_000,
      });
    } catch (error) {
      const detail =
        (error as NodeJS.ErrnoException).code === "ENOENT"
          ? `${this.bwrapPath} not found (apt-get install bubblewrap)`
          : String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim();
      throw new AgentConfigError({
        path: "sandbox",
        message: `bubblewrap cannot run: ${detail}`,
        cause: error,
      });
    }
  }

  protected override async prepareSpawn(layout: LocalSandboxLayout): Promise<PreparedSpawn> {
    const { ioDir, sessionRoot, cwd } = layout;
    const env = { HOME: ioDir, TMPDIR: "/tmp" };
    // The agent's uid resolves to a user inside (`relax<uid>` when the host does not know it).
    const accounts = await writeIdentityFiles({
      base: ioDir,
      home: ioDir,
      uid: layout.identity?.uid ?? process.getuid?.() ?? 0,
      gid: layout.identity?.gid ?? process.getgid?.() ?? 0,
    });
    // As root (uid pool), the reaper makes the working directory reachable by the agent's uid first.
    const mounts = layout.identity !== undefined ? { expose: [cwd] } : undefined;
    const namespaces = [
      "--die-with-parent",
      "--new-session",
      "--unshare-user",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      ...(this.network === "host" ? [] : ["--unshare-net"]),
    ];
    const binds = [
      "--ro-bind",
      "/",
      "/",
      "--ro-bind",
      accounts.passwd,
      "/etc/passwd",
      "--ro-bind",
      accounts.group,
      "/etc/group",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--tmpfs",
      "/tmp",
      // The private /tmp would hide the program itself when it lives under /tmp (a checkout there, and
      // this package's relay script): the gateway's working directory and this package stay visible,
      // read-only.
      ...underTmp([process.cwd(), PACKAGE_ROOT]).flatMap((path) => ["--ro-bind-try", path, path]),
      // The gateway's own folder (the default --agent-cwd) is bound read-only: agents write in $HOME.
      ...(holdsPath(cwd, process.cwd()) ? ["--ro-bind", cwd, cwd] : ["--bind", cwd, cwd]),
      // The run's own files (rows, journal, prompts, logs) vanish inside.
      ...this.pathsToHide(layout).flatMap((path) => hideArgs(path)),
      // Bound after the working directory, so a cwd above the session root does not expose siblings.
      "--tmpfs",
      sessionRoot,
      "--bind",
      ioDir,
      ioDir,
      "--remount-ro",
      sessionRoot,
    ];
    if (this.network !== "gateway-only") {
      return {
        env,
        wrapper: [this.bwrapPath, ...namespaces, ...binds, "--chdir", cwd, "--"],
        ...(mounts !== undefined ? { mounts } : {}),
      };
    }
    const relay = await startNetworkRelay({
      layout,
      allow: this.options.allow ?? [],
      insideSocket: (_outside, index) => (index === 0 ? RELAY_SOCKET : `/tmp/.relax-allow-${index}.sock`),
    });
    return {
      env,
      override: { [RELAX_ENV.baseUrl]: relay.baseUrl },
      wrapper: [
        this.bwrapPath,
        ...namespaces,
        ...binds,
        ...relay.binds.flatMap(([outside, inside]) => ["--bind", outside, inside]),
        "--chdir",
        cwd,
        "--",
        "/bin/sh",
        "-c",
        // Start the loopback relay, wait until it listens, then become the agent.
        relay.script("/tmp/.relax-relay-ready"),
        "sh",
      ],
      release: relay.close,
      ...(mounts !== undefined ? { mounts } : {}),
    };
  }
}

/** Where the gateway relay's Unix socket appears inside the sandbox (the private `/tmp`). */
const RELAY_SOCKET = "/tmp/.relax-gateway.sock";

/**
 * The paths of `paths` strictly inside `/tmp` (which the sandbox replaces by an empty tmpfs),
 * deduplicated; `/tmp` itself is never re-exposed.
 */
function underTmp(paths: readonly string[]): string[] {
  return [...new Set(paths.map((path) => resolve(path)))].filter((path) => path.startsWith("/tmp/"));
}

/** Whether `outer` is `inner` or one of its folders. */
function holdsPath(outer: string, inner: string): boolean {
  const [a, b] = [resolve(outer), resolve(inner)];
  return a === b || b.startsWith(a === "/" ? "/" : `${a}/`);
}

/** bwrap arguments hiding an existing folder (empty tmpfs) or file (`/dev/null`); none when missing. */
function hideArgs(path: string): string[] {
  try {
    const stats = statSync(path);
    if (stats.isDirectory()) return ["--tmpfs", path, "--remount-ro", path];
    if (stats.isFile()) return ["--ro-bind", "/dev/null", path];
  } catch {
    // missing: nothing to hide
  }
  return [];
}
