import { BackendUnavailableError } from "@relax/agent-api";
import type { ServerHealth } from "@relax/sglang";

/** Options of {@link checkBackendHealth}. */
export interface CheckBackendHealthOptions {
  /** One health check of every server (`SglangClient.health()`); may take long (a router listing workers). */
  probe: () => Promise<ServerHealth[]>;
  /** What is checked, for the lines: the `--sglang-url` values, or `the stand-in engine`. */
  target: string;
  /** Receives each progress line (an info log line). */
  log: (message: string, fields: Record<string, unknown>) => void;
  /** Milliseconds between two "still waiting" lines while the check has no answer. @default 5000 */
  tickMs?: number;
  /** Log `inference backend: checking <target> (/health)` before the check (for an external server). @default false */
  announce?: boolean;
}

/**
 * The start-up health check of the inference backend, with progress: while the check has no answer (an
 * unreachable host, a router retrying its worker list) it logs `still waiting for <target> (N s)` every
 * `tickMs`, so the command is never silent; it resolves when every server answers its SGLang `/health` with
 * 200, and throws otherwise, naming each failing server and its error.
 * @throws BackendUnavailableError when a server is unhealthy.
 */
export async function checkBackendHealth(options: CheckBackendHealthOptions): Promise<void> {
  const { probe, target, log, tickMs = 5000, announce = false } = options;
  const started = Date.now();
  if (announce) log(`inference backend: checking ${target} (/health)`, {});
  const timer = setInterval(() => {
    const waited = Math.round((Date.now() - started) / 1000);
    log(`inference backend: still waiting for ${target} to answer /health (${waited} s)`, {
      waited_s: waited,
    });
  }, tickMs);
  let servers: ServerHealth[];
  try {
    servers = await probe();
  } finally {
    clearInterval(timer);
  }
  const unhealthy = servers.filter((server) => !server.ok);
  if (unhealthy.length > 0) {
    throw new BackendUnavailableError({
      message: `the inference backend is not healthy: ${unhealthy
        .map((server) => `${server.url} (${server.error ?? `HTTP ${server.status}`})`)
        .join(", ")}; check --sglang-url`,
    });
  }
}
