// Loopback relay for bubblewrap's `--agent-network gateway-only` (runs inside the sandbox's network
// namespace, which has only a loopback interface): listens on 127.0.0.1:<port> and forwards every
// connection to a Unix socket the launcher bound into the sandbox, behind which the launcher connects to
// the gateway. Writes <ready file> once listening. Usage: node loopback-relay.mjs <port> <socket> <ready>
import { writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";

const [port, socketPath, readyFile] = process.argv.slice(2);
const server = createServer((client) => {
  const upstream = connect(socketPath);
  client.pipe(upstream).pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", close);
  upstream.on("error", close);
});
server.listen(Number(port), "127.0.0.1", () => writeFileSync(readyFile, ""));
