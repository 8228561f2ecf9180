import { chmod, chown, rm } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join, resolve } from "node:path";
import { RELAX_ENV } from "../contract/agent-process-contract";
import { AgentConfigError } from "../errors/agent-config-error";
import { locatePackageRoot } from "../process/locate-package-root";
import type { LocalSandboxLayout } from "./local-process-backend";

/** A TCP service outside the agent's network namespace that it may reach (`--agent-allow HOST:PORT`). */
export interface AllowedService {
  host: string;
  port: number;
}

/** Port of the relay inside the namespace when the gateway's port is privileged (below 1024). */
export const RELAY_FALLBACK_PORT = 18000;
/** The relay script shipped with the package (`native/loopback-relay.mjs`). */
export const PACKAGE_ROOT = resolve(locatePackageRoot() ?? ".");
export const RELAY_SCRIPT = join(PACKAGE_ROOT, "native", "loopback-relay.mjs");

/**
 * Parses `--agent-allow HOST:PORT` (IPv6 in brackets).
 * @throws {AgentConfigError} naming `path` for anything else.
 */
export function parseAllowedService(
  text: string,
  { path = "agentAllow" }: { path?: string } = {},
): AllowedService {
  const match = /^\s*(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})\s*$/.exec(text);
  const port = Number(match?.[2]);
  if (match === null || port < 1 || port > 65535) {
    throw new AgentConfigError({ path, message: `expected HOST:PORT, got ${JSON.stringify(text)}` });
  }
  return { host: match[1]!.replace(/^\[|\]$/g, ""), port };
}

/** One relay: a Unix socket outside (agent-owned, 0600) and the loopback port inside that leads to it. */
interface RelayLeg {
  socketPath: string;
  insidePort: number;
}

/**
 * The launcher side of `gateway-only`: a Unix socket next to the session folder for the gateway (from
 * `RELAX_BASE_URL`) and one per allowed service, each connection piped to its TCP address. Inside the
 * agent's network namespace `loopback-relay.mjs` listens on `127.0.0.1:<port>` for each (the gateway's
 * port, or {@link RELAY_FALLBACK_PORT} when privileged; an allowed service's own port), and the agent's
 * `RELAX_BASE_URL` points at `http://127.0.0.1:<port>/…`.
 *
 * @param options.insideSocket where a leg's socket appears inside (bubblewrap binds it into its private
 *   `/tmp`); @default the same path
 * @throws {AgentConfigError} for a base URL that is not plain `http://`, or an allowed port that collides.
 */
export async function startNetworkRelay({
  layout,
  allow = [],
  insideSocket = (path) => path,
}: {
  layout: LocalSandboxLayout;
  allow?: readonly AllowedService[];
  insideSocket?: (outside: string, index: number) => string;
}) {
  const raw = layout.env[RELAX_ENV.baseUrl];
  let url: URL;
  try {
    url = new URL(raw ?? "");
  } catch (error) {
    throw new AgentConfigError({
      path: "baseUrl",
      message: `not a URL: ${JSON.stringify(raw)}`,
      cause: error,
    });
  }
  if (url.protocol !== "http:") {
    throw new AgentConfigError({ path: "baseUrl", message: "gateway-only networking relays http:// only" });
  }
  const port = Number(url.port || "80");
  const host =
    url.hostname === "0.0.0.0" || url.hostname === "" ? "127.0.0.1" : url.hostname.replace(/^\[|\]$/g, "");
  const gatewayPort = port >= 1024 ? port : RELAY_FALLBACK_PORT;
  const targets = [{ host, port, insidePort: gatewayPort }];
  for (const service of allow) {
    if (targets.some((target) => target.insidePort === service.port)) {
      throw new AgentConfigError({
        path: "agentAllow",
        message: `${service.host}:${service.port} collides with another relayed port ${service.port}`,
      });
    }
    targets.push({ ...service, insidePort: service.port });
  }
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const legs: RelayLeg[] = [];
  const close = async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(servers.map((server) => new Promise<void>((done) => server.close(() => done()))));
    await Promise.all(legs.map((leg) => rm(leg.socketPath, { force: true })));
  };
  try {
    for (const [index, target] of targets.entries()) {
      const socketPath = index === 0 ? `${layout.ioDir}.sock` : `${layout.ioDir}.${index}.sock`;
      await rm(socketPath, { force: true });
      const server = createServer((client) => {
        const upstream = connect({ host: target.host, port: target.port });
        sockets.add(client).add(upstream);
        const end = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.pipe(upstream).pipe(client);
        client.on("error", end).on("close", end);
        upstream.on("error", end).on("close", end);
      });
      servers.push(server);
      legs.push({ socketPath, insidePort: target.insidePort });
      await new Promise<void>((done, reject) => {
        server.once("error", reject);
        server.listen(socketPath, () => done());
      });
      if (layout.identity !== undefined) await chown(socketPath, layout.identity.uid, layout.identity.gid);
      await chmod(socketPath, 0o600);
    }
  } catch (error) {
    await close();
    throw error;
  }
  const inside = new URL(url.href);
  inside.hostname = "127.0.0.1";
  inside.port = String(gatewayPort);
  return {
    baseUrl: inside.href,
    /** `[outside socket, inside socket]` per leg (bubblewrap binds them). */
    binds: legs.map((leg, index) => [leg.socketPath, insideSocket(leg.socketPath, index)] as const),
    /**
     * A `/bin/sh -c` script that starts the relay, waits (at most 10 s, or until it died) until every port
     * listens, then runs the agent (`"$@"`).
     */
    script(readyFile: string, { exec = true }: { exec?: boolean } = {}) {
      const pairs = legs.map(
        (leg, index) => `${leg.insidePort} ${shellQuote(insideSocket(leg.socketPath, index))}`,
      );
      return (
        `${shellQuote(process.execPath)} ${shellQuote(RELAY_SCRIPT)} ${shellQuote(readyFile)} ${pairs.join(" ")} & ` +
        "relay=$!; i=0; while [ ! -e " +
        shellQuote(readyFile) +
        " ] && kill -0 $relay 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; " +
        (exec
          ? 'exec "$@"'
          : // The relay must not outlive the agent (it would count as a leftover): run the agent as a
            // child, stop the relay, then end as the agent did (its signal re-raised).
            '"$@"; code=$?; kill $relay 2>/dev/null; wait $relay 2>/dev/null; ' +
            "if [ $code -gt 128 ]; then trap - $((code-128)) 2>/dev/null; kill -s $((code-128)) $$; fi; exit $code")
      );
    },
    close,
  };
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
