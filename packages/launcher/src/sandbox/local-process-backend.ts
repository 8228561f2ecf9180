import { statSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { COMMAND_LOG_FILE, RELAX_ENV } from "../contract/agent-process-contract";
import { AgentConfigError } from "../errors/agent-config-error";
import { ReaperUnavailableError } from "../errors/reaper-unavailable-error";
import type { AgentProcess, SpawnAgentProcessOptions } from "../process/agent-process";
import { resolveReaperBinary } from "../process/resolve-reaper-binary";
import { spawnProcessGroup } from "../process/spawn-process-group";
import { spawnSupervisedProcess } from "../process/spawn-supervised-process";
import type {
  Sandbox,
  SandboxBackend,
  SandboxCreateOptions,
  SandboxProcess,
  SandboxSpawnSpec,
} from "./sandbox-backend";

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
  /** Directory under which per-session IO directories are created. @default os.tmpdir() */
  ioRoot?: string;
  /** Base environment the agent inherits. @default process.env (read at spawn time) */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Supervision mode. @default "reaper" */
  supervision?: LocalSupervision;
  /** Explicit path of a `relax-reaper` binary (skips lookup and compilation). */
  reaperPath?: string;
  /** Login shell running the command. @default "/bin/bash" */
  shell?: string;
  /** Receives non-fatal remarks (e.g. the fallback to process groups). @default console.warn */
  onWarning?: (message: string) => void;
}

/**
 * Runs each session as a local process tree on this machine: the IO directory is a fresh
 * `relax-session-*` temporary directory, and processes run under `relax-reaper` (see
 * {@link LocalSupervision}).
 */
export class LocalProcessBackend implements SandboxBackend {
  readonly name = "local";
  private readonly options: LocalProcessBackendOptions;
  private warned = false;

  constructor(options: LocalProcessBackendOptions = {}) {
    this.options = options;
  }

  async create({ sessionId }: SandboxCreateOptions): Promise<Sandbox> {
    const root = this.options.ioRoot ?? tmpdir();
    await mkdir(root, { recursive: true });
    const ioDir = await mkdtemp(
      join(root, `relax-session-${sessionId.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64)}-`),
    );
    return new LocalSandbox({ ioDir, spawnProcess: (options) => this.spawnProcess(options) });
  }

  private async spawnProcess(overlay: SpawnAgentProcessOptions): Promise<AgentProcess> {
    const options = { ...overlay, env: { ...this.baseEnvironment(), ...overlay.env } };
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

  private baseEnvironment(): Record<string, string> {
    const base = this.options.baseEnv ?? process.env;
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(base)) if (value !== undefined) env[key] = value;
    return env;
  }
}

class LocalSandbox implements Sandbox {
  readonly id: string;
  readonly ioDir: string;
  readonly defaultCwd = process.cwd();
  readonly logPath: string;
  private readonly spawnProcess: (options: SpawnAgentProcessOptions) => Promise<AgentProcess>;
  private readonly processes = new Map<SandboxProcess, AgentProcess>();
  private destroyed = false;

  constructor({
    ioDir,
    spawnProcess,
  }: {
    ioDir: string;
    spawnProcess: (options: SpawnAgentProcessOptions) => Promise<AgentProcess>;
  }) {
    this.id = ioDir;
    this.ioDir = ioDir;
    this.logPath = join(ioDir, COMMAND_LOG_FILE);
    this.spawnProcess = spawnProcess;
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, data);
  }

  async readFile(path: string): Promise<Uint8Array | null> {
    try {
      return await readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
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
    await mkdir(dirname(spec.logPath), { recursive: true });
    const markers: Record<string, string> = {};
    for (const key of [RELAX_ENV.sessionId, RELAX_ENV.sessionIoDir]) {
      const value = spec.env[key];
      if (value !== undefined) markers[key] = value;
    }
    const agentProcess = await this.spawnProcess({
      command: spec.command,
      cwd: spec.cwd,
      env: spec.env,
      logPath: spec.logPath,
      graceMs: spec.graceMs,
      markers,
    });
    const handle: SandboxProcess = { pid: agentProcess.pid, exited: agentProcess.exited };
    this.processes.set(handle, agentProcess);
    void agentProcess.exited.then(() => this.processes.delete(handle));
    return handle;
  }

  kill(process: SandboxProcess, { force = false }: { force?: boolean } = {}): void {
    this.processes.get(process)?.terminate({ force });
  }

  async destroy({ keepIoDir = false }: { keepIoDir?: boolean } = {}): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    const running = [...this.processes.values()];
    for (const agentProcess of running) agentProcess.terminate({ force: true });
    await Promise.all(running.map((agentProcess) => agentProcess.exited));
    if (!keepIoDir) await rm(this.ioDir, { recursive: true, force: true });
  }
}
