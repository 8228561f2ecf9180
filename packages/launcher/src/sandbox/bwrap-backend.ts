import { execFileSync } from "node:child_process";
import { AgentConfigError } from "../errors/agent-config-error";
import {
  LocalProcessBackend,
  type LocalProcessBackendOptions,
  type LocalSandboxLayout,
} from "./local-process-backend";

/**
 * Network of a bubblewrap sandbox (`--agent-network`):
 * - `"host"`: the host's network namespace (the gateway and everything else reachable);
 * - `"none"`: a new network namespace with only a loopback interface (nothing outside reachable,
 *   the gateway included — for agents that only talk to the gateway over a loopback relay they set
 *   up themselves, or tests).
 */
export type BwrapNetwork = "host" | "none";

/** Options of {@link BwrapBackend}. */
export interface BwrapBackendOptions extends LocalProcessBackendOptions {
  /** Network of the sandbox. @default "host" */
  network?: BwrapNetwork;
  /** Path of the `bwrap` binary. @default "bwrap" (looked up in PATH) */
  bwrapPath?: string;
}

/**
 * Runs each session in a bubblewrap sandbox (Debian package `bubblewrap`) on top of the local backend
 * (same supervision, uid pool, log handling): new user, pid, IPC, UTS and cgroup namespaces (the agent
 * sees only its own processes in `/proc`), the host's root file system read-only, a private `/tmp` and
 * `/dev`, this backend's session root hidden behind an empty read-only tmpfs, and only the session folder and
 * the working directory (`--agent-cwd`) bound writable. `HOME` is the session folder. What it does not
 * isolate is listed in docs/security.md#bubblewrap.
 */
export class BwrapBackend extends LocalProcessBackend {
  override readonly name: string = "bwrap";
  readonly network: BwrapNetwork;
  readonly bwrapPath: string;

  constructor(options: BwrapBackendOptions = {}) {
    super(options);
    const network = options.network ?? "host";
    if (network !== "host" && network !== "none") {
      throw new AgentConfigError({
        path: "network",
        message: `must be "host" or "none", got ${JSON.stringify(network)}`,
      });
    }
    this.network = network;
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

  protected override wrapper({ ioDir, sessionRoot, cwd }: LocalSandboxLayout): readonly string[] {
    return [
      this.bwrapPath,
      "--die-with-parent",
      "--new-session",
      "--unshare-user",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      ...(this.network === "none" ? ["--unshare-net"] : []),
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--tmpfs",
      "/tmp",
      "--bind",
      cwd,
      cwd,
      // Bound after the working directory, so a cwd above the session root does not expose siblings.
      "--tmpfs",
      sessionRoot,
      "--bind",
      ioDir,
      ioDir,
      "--remount-ro",
      sessionRoot,
      "--chdir",
      cwd,
      "--",
    ];
  }

  protected override sandboxEnv(layout: LocalSandboxLayout): Record<string, string> {
    return { HOME: layout.ioDir, TMPDIR: "/tmp" };
  }
}
