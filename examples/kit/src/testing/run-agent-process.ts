import { spawn } from "node:child_process";

/** How a child agent process ended. */
export interface AgentProcessResult {
  /** Exit code, or `null` when ended by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runAgentProcess}. */
export interface RunAgentProcessOptions {
  /** Entry file: a built `.js` (see `bundleAgentEntries`), or a `.ts` source run through tsx with the `@relax/source` condition. */
  entry: string;
  /** Working directory. */
  cwd: string;
  /** Extra environment on top of a copy of `process.env` with every `RELAX_*` / `OPENAI_*` / `ANTHROPIC_*` removed. */
  env?: Record<string, string>;
  args?: readonly string[];
  /** Kill the process (SIGKILL) after this many milliseconds. @default 100_000 */
  killAfterMs?: number;
}

/**
 * Runs an example agent as a real child process, the way Relax does (a fresh process with the env
 * contract), and collects its output. The parent environment's model-API variables are removed so a
 * developer's own keys never reach a test.
 */
export function runAgentProcess({
  entry,
  cwd,
  env = {},
  args = [],
  killAfterMs = 100_000,
}: RunAgentProcessOptions): Promise<AgentProcessResult> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(RELAX_|OPENAI_|ANTHROPIC_)/.test(key)) continue;
    base[key] = value;
  }
  const nodeArgs = entry.endsWith(".ts") ? ["--conditions=@relax/source", "--import", "tsx", entry] : [entry];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, ...args], {
      cwd,
      env: { ...base, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
