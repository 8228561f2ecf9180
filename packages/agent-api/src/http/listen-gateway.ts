import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";

/** A listening gateway server. */
export interface GatewayServer extends AsyncDisposable {
  /** The bound port (the one picked when `port` was 0). */
  port: number;
  /** Stops accepting connections, drops idle keep-alive connections and waits for the server to close. */
  close(): Promise<void>;
}

/**
 * Serves `app` with `@hono/node-server` on `host:port` and resolves once it listens.
 * @throws the listen error (`EADDRINUSE` for a busy `--port`); the server is closed by then.
 */
export async function listenGateway(options: {
  app: Hono;
  host: string;
  port: number;
}): Promise<GatewayServer> {
  const server = serve({ fetch: options.app.fetch, port: options.port, hostname: options.host });
  await new Promise<void>((resolve, reject) => {
    if (server.listening) resolve();
    server.once("listening", () => resolve());
    server.once("error", (error) => {
      server.close();
      reject(error);
    });
  });
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      if ("closeIdleConnections" in server) server.closeIdleConnections();
    });
    return closed;
  };
  return { port: (server.address() as AddressInfo).port, close, [Symbol.asyncDispose]: close };
}
