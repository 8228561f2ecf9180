import { constants, statSync } from "node:fs";
import { chmod, chown, lchown, mkdir, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { type AgentEnvInheritPolicy, selectInheritedEnv } from "../config/agent-env-policy";
import { RELAX_ENV } from "../contract/agent-process-contract";
import { AgentConfigError } from "../errors/agent-config-error";
import { ReaperUnavailableError } from "../errors/reaper-unavailable-error";
import { SessionOutputError } from "../errors/session-output-error";
import type { AgentMounts, AgentProcess, SpawnAgentProcessOptions } from "../process/agent-process";
import { DEFAULT_AGENT_LOG_MAX_BYTES } from "../process/capped-log";
import { resolveReaperBinary } from "../process/resolve-reaper-binary";
import { spawnProcessGroup } from "../process/spawn-process-group";
import { spawnSupervisedProcess } from "../process/spawn-supervised-process";
import { killProcessesOfUid } from "../process/sweep-session-processes";
import type {
  Sandbox,
  SandboxBackend,
  SandboxCreateOptions,
  SandboxProcess,
  SandboxSpawnSpec,
} from "./sandbox-backend";
import { createSessionRoot, KEPT_ROOT_MARKER, sweepStaleSessionRoots } from "./session-folders";
import { type AllowedService, startNetworkRelay } from "./start-network-relay";
import type { AgentIdentity, UidPool } from "./uid-pool";
import { writeIdentityFiles } from "./write-identity-files";

/** See {@link LocalProcessBackendOptions.network}. */
export type AgentNetwork = "host" | "gateway-only" | "none";

/** Largest file {@link Sandbox.readFile} of a local sandbox returns (64 MiB); larger ones are refused. */
export const SANDBOX_READ_MAX_BYTES = 64 * 1024 * 1024;

/**
 * How local agent processes are supervised:
 * - `"reaper"`: always through `relax-reaper` (child subreaper; every descendant reaped); fails with
 *   `ReaperUnavailableError` when it cannot be built;
 * - `"auto"`: `relax-reaper` when available, else the process-group fallback (with a warning);
 * - `"process-group"`: new process group + `/proc` sweep only (orphans' zombies are left to PID 1).
 */
export type LocalSupervision = "reaper" | "auto" | "process-group";

/** Options of {@link LocalProcessBackend}. */
export interface LocalProcessBackendOptions {
  /** Directory under which this backend's session root (and the session folders) are created. @default os.tmpdir() */
  ioRoot?: string;
  /** Environment the inherited variables are taken from. @default process.env (read at spawn time) */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  /**
   * Which variables of `baseEnv` the agent inherits (`--agent-env-inherit`).
   * @default ["default"]: the safe set `DEFAULT_INHERITED_ENV` (docs/security.md#environment)
   */
  envInherit?: AgentEnvInheritPolicy;
  /**
   * Runs every sandbox under its own uid from this pool (`--agent-uid-range`; the launcher must be root):
   * the session folder is 0700 and owned by that uid, `HOME` and `TMPDIR` point into it, and after the
   * agent exits every process of the uid is killed and the folder is taken back (owned by the launcher)
   * before any output is read. @default none (agents run as the launcher's uid)
   */
  uidPool?: UidPool;
  /**
   * Host paths agents must not see (the run's rows, journal, run dir, prompt data, logs, tokenizer): in
   * the agent's mount namespace an existing folder is replaced by an empty read-only one and an existing
   * file by `/dev/null` (uid pool and bubblewrap; paths that hold the agent's working directory or
   * session folder are kept). @default none
   */
  hiddenPaths?: readonly string[];
  /**
   * Network of the agents (`--agent-network`; see docs/security.md#network):
   * - `"host"`: the host's network (the engine, the controller and every local service reachable);
   * - `"gateway-only"`: a network namespace with only a loopback interface, where a relay on
   *   `127.0.0.1:<gateway port>` leads to the agent's own gateway (shard) and, for each of `allow`, one on
   *   `127.0.0.1:<its port>` to that service; `RELAX_BASE_URL` points at the relay;
   * - `"none"`: loopback only.
   * On local processes anything but `"host"` needs a uid pool (root). @default "host"
   */
  network?: AgentNetwork;
  /** Services agents may reach under `"gateway-only"` (`--agent-allow HOST:PORT`). @default none */
  allow?: readonly AllowedService[];
  /** Cap on each session log, head and tail kept; `0` = no cap (`--agent-log-max-bytes`). @default 4 MiB */
  logMaxBytes?: number;
  /** Supervision mode. @default "reaper" */
  supervision?: LocalSupervision;
  /** Explicit path of a `relax-reaper` binary (skips lookup and compilation). */
  reaperPath?: string;
  /** Login shell running the command. @default "/bin/bash" */
  shell?: string;
  /** Receives non-fatal remarks (e.g. the fallback to process groups). @default console.warn */
  onWarning?: (message: string) => void;
}

/** What a backend subclass needs to know about a sandbox to wrap its command. */
export interface LocalSandboxLayout {
  /** The session folder (`RELAX_SESSION_IO_DIR`). */
  ioDir: string;
  /** This backend's folder holding every session folder. */
  sessionRoot: string;
  /** Working directory of the command. */
  cwd: string;
  /** The agent's uid and gid, when a uid pool is used. */
  identity?: AgentIdentity;
  /** The agent's environment overlay (`RELAX_*` included). */
  env: Readonly<Record<string, string>>;
}

/** What a backend subclass adds to one spawn (see {@link LocalProcessBackend.prepareSpawn}). */
export interface PreparedSpawn {
  /** Program and arguments put before `<shell> -lc <command>`. */
  wrapper?: readonly string[];
  /** Variables over the inherited ones, under the overlay. */
  env?: Readonly<Record<string, string>>;
  /** Variables over everything, the overlay included (e.g. a rewritten `RELAX_BASE_URL`). */
  override?: Readonly<Record<string, string>>;
  /** The agent's private mount namespace, set up by `relax-reaper` (root only). */
  mounts?: AgentMounts;
  /** Releases what was set up, once the process tree is gone. */
  release?(): void | Promise<void>;
}

/**
 * Runs each session as a local process tree on this machine, under `relax-reaper` (see
 * {@link LocalSupervision}). Session folders live in a per-backend root
 * `<ioRoot>/relax-sessions-<pid>-<random>/` and are named by the session label (never the credential):
 * `<label>-XXXXXX/`; the default log is `<label>-XXXXXX.log` next to it, outside the agent's folder,
 * mode 0600. With a {@link UidPool}, each agent gets its own uid (docs/security.md#uid-pool).
 */
export class LocalProcessBackend implements SandboxBackend {
  readonly name: string = "local";
  protected readonly options: LocalProcessBackendOptions;
  private warned = false;
  private root: Promise<string> | undefined;
  /** A sandbox kept its session folder: {@link dispose} keeps the root. */
  private keptFolders = false;

  constructor(options: LocalProcessBackendOptions = {}) {
    this.options = options;
    const { logMaxBytes, network = "host" } = options;
    if (network !== "host" && network !== "none" && network !== "gateway-only") {
      throw new AgentConfigError({
        path: "network",
        message: `must be "host", "gateway-only" or "none", got ${JSON.stringify(network)}`,
      });
    }
    if (logMaxBytes !== undefined && (!Number.isInteger(logMaxBytes) || logMaxBytes < 0)) {
      throw new AgentConfigError({
        path: "logMaxBytes",
        message: `must be a non-negative integer, got ${logMaxBytes}`,
      });
    }
  }

  /** The agents' network (see {@link LocalProcessBackendOptions.network}). */
  get network(): AgentNetwork {
    return this.options.network ?? "host";
  }

  /** Services agents may reach under `"gateway-only"`. */
  get allow(): readonly AllowedService[] {
    return this.options.allow ?? [];
  }

  /** Where session roots are created. */
  get ioRoot(): string {
    return this.options.ioRoot ?? tmpdir();
  }

  /**
   * Removes session roots that launchers killed before cleanup left under {@link ioRoot} (only
   * `relax-sessions-<pid>-*` folders of this uid whose pid is gone).
   * @returns the removed paths.
   */
  sweepStale(): Promise<string[]> {
    return sweepStaleSessionRoots(this.ioRoot);
  }

  /**
   * Removes this backend's session root (after every sandbox was destroyed), unless a sandbox kept its
   * folder (`destroy({ keepIoDir: true })`, `--keep-session-dirs`): then the root stays with it. Idempotent.
   */
  async dispose(): Promise<void> {
    const root = this.root;
    this.root = undefined;
    if (root === undefined) return;
    const path = await root.catch(() => "");
    if (path === "") return;
    if (!this.keptFolders) await rm(path, { recursive: true, force: true });
    else await writeFile(join(path, KEPT_ROOT_MARKER), "", { mode: 0o600 }).catch(() => {});
  }

  async create({ sessionLabel }: SandboxCreateOptions): Promise<Sandbox> {
    if (typeof sessionLabel !== "string" || !/^[A-Za-z0-9_.-]{1,64}$/.test(sessionLabel)) {
      throw new AgentConfigError({
        path: "sessionLabel",
        message: "must be 1 to 64 characters of [A-Za-z0-9_.-]",
      });
    }
    if (this.options.uidPool !== undefined) assertReachableByOthers(this.ioRoot);
    this.root ??= createSessionRoot(this.ioRoot, { shared: this.options.uidPool !== undefined });
    const sessionRoot = await this.root;
    const identity = await this.options.uidPool?.acquire();
    let ioDir: string | undefined;
    try {
      ioDir = await mkdtemp(join(sessionRoot, `${sessionLabel}-`));
      if (identity !== undefined) await chown(ioDir, identity.uid, identity.gid);
      await chmod(ioDir, 0o700);
    } catch (error) {
      if (ioDir !== undefined) await rm(ioDir, { recursive: true, force: true });
      if (identity !== undefined) await this.options.uidPool?.release(identity);
      throw error;
    }
    return new LocalSandbox({
      ioDir,
      sessionRoot,
      identity,
      spawnProcess: (options, layout) => this.spawnProcess(options, layout),
      release: async () => {
        if (identity !== undefined) await this.options.uidPool?.release(identity);
      },
      onKeep: () => {
        this.keptFolders = true;
      },
    });
  }

  /**
   * What to add to one spawn. Plain local processes: with a uid pool, `HOME` and `TMPDIR` in the session
   * folder, and a private mount namespace in which the uid has a passwd entry (`relax<uid>`, home the
   * session folder) and the working directory is reachable (see {@link AgentMounts}); no wrapper.
   */
  protected async prepareSpawn(layout: LocalSandboxLayout): Promise<PreparedSpawn> {
    const network = this.options.network ?? "host";
    if (layout.identity === undefined) {
      if (network !== "host") {
        throw new AgentConfigError({
          path: "network",
          message: `"${network}" on local processes needs a uid pool (the launcher must be root); use bubblewrap otherwise`,
        });
      }
      return {};
    }
    const files = await writeIdentityFiles({ base: layout.ioDir, home: layout.ioDir, ...layout.identity });
    const prepared: PreparedSpawn = {
      env: { HOME: layout.ioDir, TMPDIR: layout.ioDir },
      mounts: {
        ...files,
        expose: [layout.cwd],
        hide: this.pathsToHide(layout),
        ...(network !== "host" ? { unshareNet: true } : {}),
      },
    };
    if (network !== "gateway-only") return prepared;
    const relay = await startNetworkRelay({ layout, allow: this.options.allow ?? [] });
    return {
      ...prepared,
      override: { [RELAX_ENV.baseUrl]: relay.baseUrl },
      wrapper: ["/bin/sh", "-c", relay.script(`${layout.ioDir}/.relax-relay-ready`, { exec: false }), "sh"],
      release: relay.close,
    };
  }

  /**
   * {@link LocalProcessBackendOptions.hiddenPaths} as absolute paths, without those that are (or hold)
   * the working directory, the session folder or the session root.
   */
  protected pathsToHide(layout: LocalSandboxLayout): string[] {
    const needed = [layout.cwd, layout.ioDir, layout.sessionRoot].map((path) => resolve(path));
    const holds = (outer: string, inner: string) => inner === outer || inner.startsWith(`${outer}${sep}`);
    const paths = (this.options.hiddenPaths ?? []).map((path) => resolve(path));
    return [...new Set(paths)].filter((path) => path !== sep && !needed.some((inner) => holds(path, inner)));
  }

  private async spawnProcess(
    overlay: Omit<SpawnAgentProcessOptions, "logMaxBytes" | "identity" | "wrapper">,
    layout: LocalSandboxLayout,
  ): Promise<AgentProcess> {
    const base = selectInheritedEnv(this.options.baseEnv ?? process.env, this.options.envInherit);
    const prepared = await this.prepareSpawn(layout);
    try {
      const agentProcess = await this.spawnPrepared(overlay, layout, base, prepared);
      const exited = agentProcess.exited.then(async (exit) => {
        await prepared.release?.();
        return exit;
      });
      return { ...agentProcess, terminate: agentProcess.terminate, exited };
    } catch (error) {
      await prepared.release?.();
      throw error;
    }
  }

  private async spawnPrepared(
    overlay: Omit<SpawnAgentProcessOptions, "logMaxBytes" | "identity" | "wrapper">,
    layout: LocalSandboxLayout,
    base: Record<string, string>,
    prepared: PreparedSpawn,
  ): Promise<AgentProcess> {
    const { wrapper } = prepared;
    const options: SpawnAgentProcessOptions = {
      ...overlay,
      env: { ...base, ...prepared.env, ...overlay.env, ...prepared.override },
      logMaxBytes: this.options.logMaxBytes ?? DEFAULT_AGENT_LOG_MAX_BYTES,
      ...(layout.identity !== undefined ? { identity: layout.identity } : {}),
      ...(wrapper !== undefined ? { wrapper } : {}),
      ...(prepared.mounts !== undefined ? { mounts: prepared.mounts } : {}),
    };
    const supervision = this.options.supervision ?? "reaper";
    const shell = this.options.shell ?? options.shell;
    if (supervision === "process-group") return spawnProcessGroup({ ...options, shell });
    let reaperPath = this.options.reaperPath;
    if (reaperPath === undefined) {
      try {
        reaperPath = await resolveReaperBinary();
      } catch (error) {
        if (supervision !== "auto" || !ReaperUnavailableError.isInstance(error)) throw error;
        if (!this.warned) {
          this.warned = true;
          (this.options.onWarning ?? console.warn)(
            `@relax/launcher: ${error.message}; falling back to process-group supervision`,
          );
        }
        return spawnProcessGroup({ ...options, shell });
      }
    }
    return spawnSupervisedProcess({ ...options, shell, reaperPath });
  }
}

type SpawnLocal = (
  options: Omit<SpawnAgentProcessOptions, "logMaxBytes" | "identity" | "wrapper">,
  layout: LocalSandboxLayout,
) => Promise<AgentProcess>;

class LocalSandbox implements Sandbox {
  readonly id: string;
  readonly ioDir: string;
  readonly defaultCwd = process.cwd();
  readonly logPath: string;
  private readonly sessionRoot: string;
  private readonly identity: AgentIdentity | undefined;
  private readonly spawnProcess: SpawnLocal;
  private readonly release: () => Promise<void>;
  private readonly onKeep: () => void;
  private readonly processes = new Map<SandboxProcess, AgentProcess>();
  private destroyed = false;
  /** The folder was taken back after the last exit (and nothing was spawned since). */
  private locked = false;

  constructor(options: {
    ioDir: string;
    sessionRoot: string;
    identity: AgentIdentity | undefined;
    spawnProcess: SpawnLocal;
    release: () => Promise<void>;
    onKeep: () => void;
  }) {
    this.id = options.ioDir;
    this.ioDir = options.ioDir;
    this.sessionRoot = options.sessionRoot;
    this.logPath = `${options.ioDir}.log`;
    this.identity = options.identity;
    this.spawnProcess = options.spawnProcess;
    this.release = options.release;
    this.onKeep = options.onKeep;
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    const created = await mkdir(dirname(path), { recursive: true });
    await writeFile(path, data, { mode: 0o644 });
    if (this.identity === undefined || !this.inside(path)) return;
    // Files the launcher prepares inside the session folder belong to the agent, like the folder.
    const { uid, gid } = this.identity;
    if (created !== undefined) {
      for (let directory = dirname(path); this.inside(directory); directory = dirname(directory)) {
        await lchown(directory, uid, gid);
        if (directory === created) break;
      }
    }
    await lchown(path, uid, gid);
  }

  /**
   * Reads a regular file without following a symbolic link in its last component and refusing files
   * over {@link SANDBOX_READ_MAX_BYTES}: the agent controls the session folder's content, the launcher
   * reads with its own privileges.
   */
  async readFile(path: string): Promise<Uint8Array | null> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return null;
      if (code === "ELOOP") {
        throw new SessionOutputError({ message: `${path} is a symbolic link`, cause: error });
      }
      throw error;
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw new SessionOutputError({ message: `${path} is not a regular file` });
      if (stats.size > SANDBOX_READ_MAX_BYTES) {
        throw new SessionOutputError({
          message: `${path} has ${stats.size} bytes (at most ${SANDBOX_READ_MAX_BYTES})`,
        });
      }
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  async spawn(spec: SandboxSpawnSpec): Promise<SandboxProcess> {
    if (this.destroyed) throw new Error(`sandbox ${this.id} is destroyed`);
    let isDirectory = false;
    try {
      isDirectory = statSync(spec.cwd).isDirectory();
    } catch {
      // reported below
    }
    if (!isDirectory)
      throw new AgentConfigError({ path: "cwd", message: `${spec.cwd} is not an existing directory` });
    await mkdir(dirname(spec.logPath), { recursive: true, mode: 0o700 });
    const markers: Record<string, string> = {};
    for (const key of [RELAX_ENV.sessionId, RELAX_ENV.sessionIoDir]) {
      const value = spec.env[key];
      if (value !== undefined) markers[key] = value;
    }
    const agentProcess = await this.spawnProcess(
      {
        command: spec.command,
        cwd: spec.cwd,
        env: spec.env,
        logPath: spec.logPath,
        graceMs: spec.graceMs,
        markers,
      },
      {
        ioDir: this.ioDir,
        sessionRoot: this.sessionRoot,
        cwd: spec.cwd,
        env: spec.env,
        ...(this.identity !== undefined ? { identity: this.identity } : {}),
      },
    );
    // The agent's exit is reported only once nothing of its uid runs and the folder is the launcher's.
    const exited = agentProcess.exited.then(async (exit) => {
      await this.lock();
      return exit;
    });
    const handle: SandboxProcess = { pid: agentProcess.pid, exited };
    this.locked = false;
    this.processes.set(handle, agentProcess);
    void exited.then(() => this.processes.delete(handle));
    return handle;
  }

  kill(process: SandboxProcess, { force = false }: { force?: boolean } = {}): void {
    this.processes.get(process)?.terminate({ force });
  }

  async destroy({ keepIoDir = false }: { keepIoDir?: boolean } = {}): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    const running = [...this.processes.entries()];
    for (const [, agentProcess] of running) agentProcess.terminate({ force: true });
    await Promise.all(running.map(([handle]) => handle.exited));
    await this.lock();
    if (!keepIoDir) {
      await rm(this.ioDir, { recursive: true, force: true });
      await rm(this.logPath, { force: true });
    } else this.onKeep();
    await rm(`${this.ioDir}.passwd`, { force: true });
    await rm(`${this.ioDir}.group`, { force: true });
    await this.release();
  }

  /** With a uid pool: kills whatever still runs under the agent's uid and takes the folder back. */
  private async lock(): Promise<void> {
    if (this.identity === undefined || (this.locked && this.processes.size === 0)) return;
    await killProcessesOfUid(this.identity.uid);
    this.locked = true;
    await chown(this.ioDir, process.getuid?.() ?? 0, process.getgid?.() ?? 0).catch(() => {});
    await chmod(this.ioDir, 0o700).catch(() => {});
  }

  private inside(path: string): boolean {
    const rest = relative(this.ioDir, path);
    return rest === "" || (!rest.startsWith(`..${sep}`) && rest !== ".." && !rest.startsWith(sep));
  }
}

/**
 * With a uid pool, every folder down to the session root must let other users pass (o+x).
 * @throws {AgentConfigError} (`path: "ioRoot"`) naming the first folder that does not.
 */
function assertReachableByOthers(ioRoot: string): void {
  const chain: string[] = [];
  for (let folder = ioRoot; ; folder = dirname(folder)) {
    chain.unshift(folder);
    if (dirname(folder) === folder) break;
  }
  for (const folder of chain) {
    let mode: number;
    try {
      mode = statSync(folder).mode;
    } catch {
      return; // created later (mkdir -p, 0755)
    }
    if ((mode & 0o001) === 0) {
      throw new AgentConfigError({
        path: "ioRoot",
        message: `${folder} (mode ${(mode & 0o777).toString(8)}) cannot be entered by other users, so agents under their own uids cannot reach their session folders; give it o+x or use another TMPDIR`,
      });
    }
  }
}
