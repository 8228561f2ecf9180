import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createSglangClient } from "../src/index";
import { reply } from "./canned-server";

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/**
 * A server that keeps idle connections for a minute (and says so in `Keep-Alive: timeout=60`), so any
 * close within the test is the client's; reports each connection's close.
 */
async function longKeepAliveServer() {
  const closes: Socket[] = [];
  const sockets: Socket[] = [];
  const closed: Array<() => void> = [];
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(reply("r-1", [7, 8])));
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on("connection", (socket: Socket) => {
    sockets.push(socket);
    socket.on("close", () => {
      closes.push(socket);
      closed.shift()?.();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const nextClose = () => new Promise<void>((resolve) => closed.push(resolve));
  return { url, closes, sockets, nextClose };
}

describe("createSglangClient: its own connection pool", () => {
  it("should close an idle connection itself, well below the server's keep-alive", async () => {
    const engine = await longKeepAliveServer();
    const client = createSglangClient({ baseUrl: engine.url, connections: { keepAliveTimeoutMs: 50 } });
    const closed = engine.nextClose();
    const result = await client.generate({ inputIds: [1, 2], rid: "r-1" });
    expect(result.outputIds).toEqual([7, 8]);
    // With the process-wide pool the connection would stay open for the server's 60 s hint and this
    // await would time out; the client's own pool closes it after 50 ms idle.
    await closed;
    expect(engine.closes).toHaveLength(1);
    expect(engine.sockets).toHaveLength(1);
  });
});
