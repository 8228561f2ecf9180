import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A running test server. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/**
 * Mounts a Web-standard handler on a loopback `node:http` server — the same bridge the README shows:
 * the request body is read, a `Request` is built with a signal that aborts when the client closes the
 * connection, and the `Response` body is piped back chunk by chunk (cancelled when the client leaves).
 */
export async function serveHandler(handler: (request: Request) => Promise<Response>): Promise<TestServer> {
  const server = createServer((incoming, outgoing) => {
    void bridge(handler, incoming, outgoing);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function bridge(
  handler: (request: Request) => Promise<Response>,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): Promise<void> {
  const abort = new AbortController();
  outgoing.on("close", () => {
    if (!outgoing.writableFinished) abort.abort();
  });
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD";
  const request = new Request(`http://${incoming.headers.host ?? "localhost"}${incoming.url ?? "/"}`, {
    ...(incoming.method !== undefined ? { method: incoming.method } : {}),
    headers,
    ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
    signal: abort.signal,
  });
  const response = await handler(request);
  outgoing.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) {
    outgoing.end();
    return;
  }
  const reader = response.body.getReader();
  outgoing.on("close", () => {
    if (!outgoing.writableFinished) void reader.cancel().catch(() => {});
  });
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      outgoing.write(value);
    }
  } catch {
    // The reader was cancelled because the client left.
  }
  outgoing.end();
}
